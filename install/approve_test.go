package install

import (
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/registry"
)

var (
	hookBuild       = HookItem{Name: manifest.HookBuild, Command: "make"}
	hookAutoBuild   = HookItem{Name: manifest.HookBuild, Command: "cargo build --release", Auto: true}
	hookPostInstall = HookItem{Name: manifest.HookPostInstall, Command: "./setup.sh"}
	hookPostRemove  = HookItem{Name: manifest.HookPostRemove, Command: "./cleanup.sh"}
	hookPrePush     = HookItem{Name: manifest.HookPrePush, Command: "./check.sh"}
)

func req(tier registry.Tier, caps manifest.Capabilities, hooks ...HookItem) Request {
	return Request{Plugin: "fledge-plugin-x", Version: "1.0.0", Source: "o/fledge-plugin-x", Tier: tier, Capabilities: caps, Hooks: hooks}
}

func grants(items ...string) map[string]bool {
	m := map[string]bool{}
	for _, it := range items {
		m[it] = true
	}
	return m
}

var allCaps = manifest.Capabilities{Exec: true, Store: true, Metadata: true, Network: true, Filesystem: "project"}

// askReturning is an Ask that records its call and answers d.
func askReturning(d Decision, called *int) func(Request) (Decision, error) {
	return func(Request) (Decision, error) {
		*called++
		return d, nil
	}
}

func TestDecide(t *testing.T) {
	askAll := Decision{Capabilities: allCaps, Hooks: true}
	cases := []struct {
		name    string
		consent func(called *int) Consent
		req     Request
		// want is the decision expected when no error is.
		want Decision
		// missing, when non-nil, expects an *ApprovalError with these items.
		missing  []string
		askCalls int
	}{
		// Nothing requested: approved without asking or flags.
		{name: "empty, no flags", consent: func(*int) Consent { return Consent{} }, req: req(registry.TierUnverified, manifest.Capabilities{})},
		{name: "empty, ask not called", consent: func(c *int) Consent { return Consent{Ask: askReturning(askAll, c)} }, req: req(registry.TierUnverified, manifest.Capabilities{})},
		{name: "filesystem none is nothing", consent: func(*int) Consent { return Consent{} }, req: req(registry.TierUnverified, manifest.Capabilities{Filesystem: "none"})},

		// No flags, no terminal: every item is named.
		{name: "no flags no ask", consent: func(*int) Consent { return Consent{} }, req: req(registry.TierOfficial, allCaps, hookBuild),
			missing: []string{"exec", "store", "metadata", "network", "filesystem", "hooks"}},
		{name: "no flags no ask, hooks only", consent: func(*int) Consent { return Consent{} }, req: req(registry.TierLocal, manifest.Capabilities{}, hookPostRemove),
			missing: []string{"hooks"}},

		// Ask: used only without flags, its answer intersected.
		{name: "ask all", consent: func(c *int) Consent { return Consent{Ask: askReturning(askAll, c)} },
			req: req(registry.TierUnverified, manifest.Capabilities{Exec: true, Store: true}, hookBuild), askCalls: 1,
			want: Decision{Capabilities: manifest.Capabilities{Exec: true, Store: true}, Hooks: true}},
		{name: "ask some", consent: func(c *int) Consent {
			return Consent{Ask: askReturning(Decision{Capabilities: manifest.Capabilities{Store: true}}, c)}
		}, req: req(registry.TierOfficial, manifest.Capabilities{Exec: true, Store: true}), askCalls: 1,
			want: Decision{Capabilities: manifest.Capabilities{Store: true}}},
		{name: "ask none", consent: func(c *int) Consent { return Consent{Ask: askReturning(Decision{}, c)} },
			req: req(registry.TierOfficial, manifest.Capabilities{Exec: true}, hookPostRemove), askCalls: 1, want: Decision{}},
		{name: "ask widens filesystem: dropped", consent: func(c *int) Consent {
			return Consent{Ask: askReturning(Decision{Capabilities: manifest.Capabilities{Exec: true, Network: true, Filesystem: "full"}}, c)}
		}, req: req(registry.TierTeam, manifest.Capabilities{Exec: true, Filesystem: "project"}), askCalls: 1,
			want: Decision{Capabilities: manifest.Capabilities{Exec: true}}},
		{name: "ask same filesystem: kept", consent: func(c *int) Consent {
			return Consent{Ask: askReturning(Decision{Capabilities: manifest.Capabilities{Filesystem: "project"}}, c)}
		}, req: req(registry.TierTeam, manifest.Capabilities{Exec: true, Filesystem: "project"}), askCalls: 1,
			want: Decision{Capabilities: manifest.Capabilities{Filesystem: "project"}}},
		{name: "ask refuses needed build", consent: func(c *int) Consent {
			return Consent{Ask: askReturning(Decision{Capabilities: allCaps}, c)}
		}, req: req(registry.TierLocal, manifest.Capabilities{Store: true}, hookAutoBuild), askCalls: 1, missing: []string{"hooks"}},
		{name: "ask refuses needed post_install", consent: func(c *int) Consent {
			return Consent{Ask: askReturning(Decision{}, c)}
		}, req: req(registry.TierLocal, manifest.Capabilities{}, hookPostInstall, hookPrePush), askCalls: 1, missing: []string{"hooks"}},
		{name: "yes wins over ask", consent: func(c *int) Consent { return Consent{Yes: true, Ask: askReturning(Decision{}, c)} },
			req: req(registry.TierOfficial, manifest.Capabilities{Exec: true}), want: Decision{Capabilities: manifest.Capabilities{Exec: true}}},
		{name: "grant wins over ask", consent: func(c *int) Consent { return Consent{Grant: grants("store"), Ask: askReturning(askAll, c)} },
			req: req(registry.TierOfficial, manifest.Capabilities{Exec: true, Store: true}), want: Decision{Capabilities: manifest.Capabilities{Store: true}}},

		// --yes on trusted tiers approves everything.
		{name: "yes official", consent: func(*int) Consent { return Consent{Yes: true} }, req: req(registry.TierOfficial, allCaps, hookBuild, hookPostInstall, hookPostRemove),
			want: Decision{Capabilities: allCaps, Hooks: true}},
		{name: "yes team", consent: func(*int) Consent { return Consent{Yes: true} }, req: req(registry.TierTeam, allCaps, hookPostInstall),
			want: Decision{Capabilities: allCaps, Hooks: true}},
		{name: "yes local", consent: func(*int) Consent { return Consent{Yes: true} }, req: req(registry.TierLocal, allCaps, hookAutoBuild),
			want: Decision{Capabilities: allCaps, Hooks: true}},

		// --yes on unverified withholds exec, network and hooks.
		{name: "yes unverified all", consent: func(*int) Consent { return Consent{Yes: true} }, req: req(registry.TierUnverified, allCaps, hookBuild),
			missing: []string{"exec", "network", "hooks"}},
		{name: "yes unverified exec only", consent: func(*int) Consent { return Consent{Yes: true} }, req: req(registry.TierUnverified, manifest.Capabilities{Exec: true, Store: true}),
			missing: []string{"exec"}},
		{name: "yes unverified post_remove only", consent: func(*int) Consent { return Consent{Yes: true} }, req: req(registry.TierUnverified, manifest.Capabilities{}, hookPostRemove),
			missing: []string{"hooks"}},
		{name: "yes unverified safe caps", consent: func(*int) Consent { return Consent{Yes: true} },
			req:  req(registry.TierUnverified, manifest.Capabilities{Store: true, Metadata: true, Filesystem: "project"}),
			want: Decision{Capabilities: manifest.Capabilities{Store: true, Metadata: true, Filesystem: "project"}}},

		// An unknown filesystem scope is the widest claim: --yes approves it
		// for no tier, an explicit grant does.
		{name: "yes official unknown scope", consent: func(*int) Consent { return Consent{Yes: true} },
			req: req(registry.TierOfficial, manifest.Capabilities{Store: true, Filesystem: "home"}), missing: []string{"filesystem"}},
		{name: "yes local unknown scope", consent: func(*int) Consent { return Consent{Yes: true} },
			req: req(registry.TierLocal, manifest.Capabilities{Filesystem: "/"}), missing: []string{"filesystem"}},
		{name: "yes unverified unknown scope and exec", consent: func(*int) Consent { return Consent{Yes: true} },
			req: req(registry.TierUnverified, manifest.Capabilities{Exec: true, Filesystem: "all"}), missing: []string{"exec", "filesystem"}},
		{name: "yes plugin scope", consent: func(*int) Consent { return Consent{Yes: true} },
			req:  req(registry.TierUnverified, manifest.Capabilities{Filesystem: "plugin"}),
			want: Decision{Capabilities: manifest.Capabilities{Filesystem: "plugin"}}},
		{name: "yes+grant filesystem unknown scope", consent: func(*int) Consent { return Consent{Yes: true, Grant: grants("filesystem")} },
			req:  req(registry.TierTeam, manifest.Capabilities{Store: true, Filesystem: "home"}),
			want: Decision{Capabilities: manifest.Capabilities{Store: true, Filesystem: "home"}}},
		{name: "grant filesystem unknown scope", consent: func(*int) Consent { return Consent{Grant: grants("filesystem")} },
			req:  req(registry.TierUnverified, manifest.Capabilities{Filesystem: "home"}),
			want: Decision{Capabilities: manifest.Capabilities{Filesystem: "home"}}},

		// --grant approves exactly what it names; the rest is denied.
		{name: "grant exactly", consent: func(*int) Consent { return Consent{Grant: grants("store", "network")} },
			req: req(registry.TierUnverified, allCaps), want: Decision{Capabilities: manifest.Capabilities{Store: true, Network: true}}},
		{name: "grant unrequested ignored", consent: func(*int) Consent { return Consent{Grant: grants("exec", "hooks")} },
			req: req(registry.TierOfficial, manifest.Capabilities{Store: true}), want: Decision{}},
		{name: "grant exec on unverified", consent: func(*int) Consent { return Consent{Grant: grants("exec", "hooks")} },
			req: req(registry.TierUnverified, manifest.Capabilities{Exec: true, Store: true}, hookBuild), want: Decision{Capabilities: manifest.Capabilities{Exec: true}, Hooks: true}},
		{name: "grant filesystem keeps scope", consent: func(*int) Consent { return Consent{Grant: grants("filesystem")} },
			req: req(registry.TierUnverified, manifest.Capabilities{Exec: true, Filesystem: "project"}), want: Decision{Capabilities: manifest.Capabilities{Filesystem: "project"}}},
		{name: "grant without hooks, optional hook", consent: func(*int) Consent { return Consent{Grant: grants("store")} },
			req: req(registry.TierUnverified, manifest.Capabilities{Store: true}, hookPostRemove, hookPrePush), want: Decision{Capabilities: manifest.Capabilities{Store: true}}},
		{name: "grant without hooks, build needed", consent: func(*int) Consent { return Consent{Grant: grants("store")} },
			req: req(registry.TierOfficial, manifest.Capabilities{Store: true}, hookBuild), missing: []string{"hooks"}},
		{name: "grant without hooks, auto build needed", consent: func(*int) Consent { return Consent{Grant: grants("exec")} },
			req: req(registry.TierLocal, manifest.Capabilities{Exec: true}, hookAutoBuild), missing: []string{"hooks"}},
		{name: "grant without hooks, post_install needed", consent: func(*int) Consent { return Consent{Grant: grants("exec")} },
			req: req(registry.TierTeam, manifest.Capabilities{Exec: true}, hookPostInstall), missing: []string{"hooks"}},

		// --grant none denies everything requested, except that a
		// required hook still blocks.
		{name: "grant none", consent: func(*int) Consent { return Consent{Grant: grants()} },
			req: req(registry.TierUnverified, allCaps, hookPostRemove), want: Decision{}},
		{name: "grant none, build needed", consent: func(c *int) Consent { return Consent{Grant: grants(), Ask: askReturning(askAll, c)} },
			req: req(registry.TierLocal, allCaps, hookBuild), missing: []string{"hooks"}},

		// --yes and --grant together approve the union.
		{name: "yes+grant unverified complete", consent: func(*int) Consent { return Consent{Yes: true, Grant: grants("exec", "network", "hooks")} },
			req: req(registry.TierUnverified, allCaps, hookBuild, hookPostRemove), want: Decision{Capabilities: allCaps, Hooks: true}},
		{name: "yes+grant unverified partial", consent: func(*int) Consent { return Consent{Yes: true, Grant: grants("exec")} },
			req: req(registry.TierUnverified, allCaps, hookPostRemove), missing: []string{"network", "hooks"}},
		{name: "yes+grant official", consent: func(*int) Consent { return Consent{Yes: true, Grant: grants("store")} },
			req: req(registry.TierOfficial, allCaps, hookBuild), want: Decision{Capabilities: allCaps, Hooks: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			c := tc.consent(&calls)
			d, err := c.Decide(tc.req)
			if calls != tc.askCalls {
				t.Errorf("Ask called %d times, want %d", calls, tc.askCalls)
			}
			if tc.missing != nil {
				var ae *ApprovalError
				if !errors.As(err, &ae) {
					t.Fatalf("Decide = %+v, %v; want *ApprovalError", d, err)
				}
				if !reflect.DeepEqual(ae.Missing, tc.missing) {
					t.Errorf("Missing = %q, want %q", ae.Missing, tc.missing)
				}
				if ae.Plugin != tc.req.Plugin || ae.Tier != tc.req.Tier {
					t.Errorf("error names %s/%s, want %s/%s", ae.Plugin, ae.Tier, tc.req.Plugin, tc.req.Tier)
				}
				for _, m := range tc.missing {
					if !strings.Contains(ae.Error(), m) {
						t.Errorf("message %q does not name %s", ae.Error(), m)
					}
				}
				// The library names no flags: hints are the CLI's.
				if strings.Contains(ae.Error(), "--") {
					t.Errorf("message %q names a flag", ae.Error())
				}
				if ae.Cause == "" {
					t.Errorf("no Cause: the CLI cannot say what would approve it")
				}
				// Approved and Missing together are what a retry names;
				// they never overlap and never exceed the request.
				for _, a := range ae.Approved {
					if slices.Contains(ae.Missing, a) || !slices.Contains(tc.req.Items(), a) {
						t.Errorf("Approved %q overlaps Missing %q or exceeds the request", ae.Approved, ae.Missing)
					}
				}
				if !d.Capabilities.IsZero() || d.Hooks {
					t.Errorf("decision %+v returned with an error", d)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if !d.Capabilities.Equal(tc.want.Capabilities) || d.Hooks != tc.want.Hooks {
				t.Errorf("Decide = %+v, want %+v", d, tc.want)
			}
			// Nothing is ever approved beyond what was requested.
			if extra := d.Capabilities.Missing(tc.req.Capabilities); len(extra) > 0 {
				t.Errorf("approved unrequested %v", extra)
			}
		})
	}
}

func TestDecideAskError(t *testing.T) {
	boom := errors.New("interrupted")
	c := Consent{Ask: func(Request) (Decision, error) { return Decision{Capabilities: allCaps, Hooks: true}, boom }}
	d, err := c.Decide(req(registry.TierOfficial, allCaps))
	if !errors.Is(err, boom) || !d.Capabilities.IsZero() || d.Hooks {
		t.Errorf("Decide = %+v, %v; want the Ask error and nothing approved", d, err)
	}
}

// Ask sees the whole request, hooks with their exact commands included.
func TestDecideAskSeesRequest(t *testing.T) {
	r := req(registry.TierUnverified, allCaps, hookAutoBuild, hookPostRemove)
	var seen Request
	c := Consent{Ask: func(got Request) (Decision, error) { seen = got; return Decision{Hooks: true}, nil }}
	if _, err := c.Decide(r); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, r) {
		t.Errorf("Ask saw %+v, want %+v", seen, r)
	}
	if got := r.Items(); !reflect.DeepEqual(got, []string{"exec", "store", "metadata", "network", "filesystem", "hooks"}) {
		t.Errorf("Items = %q", got)
	}
}

func TestParseGrants(t *testing.T) {
	cases := []struct {
		in   []string
		want []string
		bad  string // substring of the error, when one is expected
	}{
		{in: nil, want: nil},
		{in: []string{"none"}, want: []string{}},
		{in: []string{"NONE", ""}, want: []string{}},
		{in: []string{"none,exec"}, bad: `"none"`},
		{in: []string{"exec"}, want: []string{"exec"}},
		{in: []string{"EXEC", "Store"}, want: []string{"exec", "store"}},
		{in: []string{"exec,store,metadata"}, want: []string{"exec", "metadata", "store"}},
		{in: []string{" exec , network "}, want: []string{"exec", "network"}},
		{in: []string{"exec", "store,hooks", "exec"}, want: []string{"exec", "hooks", "store"}},
		{in: []string{"HOOKS"}, want: []string{"hooks"}},
		{in: []string{"filesystem"}, want: []string{"filesystem"}},
		{in: []string{"exec,,", ","}, want: []string{"exec"}},
		{in: []string{""}, want: nil},
		{in: []string{"exec,sudo"}, bad: `"sudo"`},
		{in: []string{"all"}, bad: `"all"`},
		{in: []string{"exec store"}, bad: `"exec store"`},
		{in: []string{"hook"}, bad: "hooks"},
	}
	for _, tc := range cases {
		got, err := ParseGrants(tc.in)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("ParseGrants(%q) = %v, %v; want an error mentioning %s", tc.in, got, err, tc.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseGrants(%q): %v", tc.in, err)
			continue
		}
		if (got == nil) != (tc.want == nil) {
			t.Errorf("ParseGrants(%q) = %v: nil is \"nothing named\", empty is \"none\"; want %q", tc.in, got, tc.want)
			continue
		}
		if keys := SortedKeys(got); tc.want != nil && !reflect.DeepEqual(keys, tc.want) {
			t.Errorf("ParseGrants(%q) = %q, want %q", tc.in, keys, tc.want)
		}
	}
}

// SortedKeys lists a grant set in order, for comparing.
func SortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// What an approval form asks the user to review for an unverified source
// is what only naming grants it: exec, network and hooks it requests.
func TestUnverifiedItems(t *testing.T) {
	t.Parallel()
	hooks := []HookItem{{Name: manifest.HookBuild, Command: "make"}}
	for _, tc := range []struct {
		r    Request
		want []string
	}{
		{Request{Tier: registry.TierUnverified, Capabilities: manifest.Capabilities{Store: true}}, nil},
		{Request{Tier: registry.TierUnverified, Capabilities: manifest.Capabilities{Exec: true, Store: true, Filesystem: "home"}, Hooks: hooks}, []string{"exec", "hooks"}},
		{Request{Tier: registry.TierUnverified, Capabilities: manifest.Capabilities{Network: true}}, []string{"network"}},
		{Request{Tier: registry.TierTeam, Capabilities: manifest.Capabilities{Exec: true}, Hooks: hooks}, nil},
	} {
		if got := tc.r.UnverifiedItems(); !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: %q, want %q", tc.r.Tier, tc.r.Items(), got, tc.want)
		}
	}
	if got := UnverifiedGrants(); !slices.Equal(got, []string{"exec", "network", "environment", "hooks"}) {
		t.Errorf("UnverifiedGrants() = %q", got)
	}
}
