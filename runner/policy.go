package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/internal/bounded"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/settings"
)

// CodePolicyDenied: the admin policy denies the plugin's source, so it
// does not run.
const CodePolicyDenied = "policy_denied"

// applyPolicy narrows t's grants to what the settings allow it (the
// policy's limits for its tier), so tightening the policy takes effect
// without reinstalling anything: a capability plugins.toml grants and the
// policy forbids is denied when the plugin asks, exactly as one never
// granted. A plugin whose source the policy denies does not run at all,
// nor does any plugin while [protection] require says the system policy
// must be protected and it is not.
func (r *Runner) applyPolicy(t *Target) error {
	pol := r.Settings.Policy()
	if pol.Empty() {
		return nil
	}
	e := &t.Entry
	if d := pol.CheckRunProtected(); d != nil {
		t.sourceDenial = d
		return &Error{Code: CodePolicyDenied, Err: fmt.Errorf("plugin %s does not run: %w", e.Name, policy.Deny(e.Name, *d))}
	}
	if d := pol.CheckSource(settings.RecordSource(e)); d != nil {
		t.sourceDenial = d
		return &Error{Code: CodePolicyDenied, Err: fmt.Errorf("plugin %s does not run: %w", e.Name, policy.Deny(e.Name, *d))}
	}
	g := r.Settings.Grants(e)
	if len(g.Denied) == 0 {
		return nil
	}
	t.policy = map[manifest.Capability]policy.Denial{}
	for _, d := range g.Denied {
		if d.Item != policy.ItemHooks { // hooks never run at run time
			t.policy[manifest.Capability(d.Item)] = d
		}
	}
	t.granted = &g.Capabilities
	return nil
}

// policyDenialMessage is what the user is told, once, when the plugin asks
// for a capability the policy took away.
func policyDenialMessage(c manifest.Capability, d policy.Denial) string {
	return fmt.Sprintf("denied %s: plugins.toml grants it, but the admin policy forbids it: %s", c, d.Text())
}

// logPolicyDenials records in the grant log what the policy denied this
// run (capabilities the plugin asked for, or "source" when it did not run),
// once per plugin, item and policy: later runs under the same policy add
// nothing, so the log does not grow with use. What was logged is kept
// beside the plugin's data (home.Paths.PolicyDenialsFile).
func (r *Runner) logPolicyDenials(t *Target, items []string) error {
	if r.Journal == nil || len(items) == 0 {
		return nil
	}
	digest := r.Settings.Policy().Digest()
	seenFile := r.Paths.PolicyDenialsFile(t.Entry.Name)
	var fresh []string
	store := lockfile.NewStore(r.Paths.PluginsFile(), r.Paths.PluginsLock())
	err := store.Transact(func(f *lockfile.File) error {
		seen := readSeen(seenFile)
		for _, it := range items {
			if !seen[digest+" "+it] {
				fresh = append(fresh, it)
			}
		}
		if _, ok := f.Get(t.Entry.Name); !ok || len(fresh) == 0 {
			return errNothingNew
		}
		return nil
	}, func(f *lockfile.File, before []byte) error {
		p, _ := f.Get(t.Entry.Name)
		rec := grantlog.Record{Action: grantlog.ActionPolicyDenial, Plugin: p.Name, Version: p.Version, Source: p.Source,
			URL: p.URL, Commit: p.Commit, TreeHash: p.TreeHash, Capabilities: p.Capabilities, Hooks: p.Hooks,
			Consent: map[string]string{}, Note: "denied when the plugin asked, at run time"}
		rec.Tier = string(r.Settings.Tier(p))
		for _, it := range fresh {
			d, ok := t.policy[manifest.Capability(it)]
			if it == "source" && t.sourceDenial != nil {
				d, ok = *t.sourceDenial, true
				rec.Note = "refused to run: the admin policy denies its source"
				if d.Item == "protection" {
					rec.Note = "refused to run: the system policy is not protected"
				}
			} else {
				rec.Removed = append(rec.Removed, it)
				rec.Consent[it] = grantlog.ConsentPolicy
			}
			if ok {
				rec.Policy = append(rec.Policy, grantlog.PolicyNote{Item: d.Item, Rule: d.Rule, File: d.File, Reason: d.Reason})
			}
		}
		return r.Journal.Append(f, before, rec)
	})
	if errors.Is(err, errNothingNew) {
		return nil
	}
	if err != nil {
		return err
	}
	return appendSeen(seenFile, digest, fresh)
}

// errNothingNew ends a transaction that has nothing to log.
var errNothingNew = errors.New("nothing new to log")

func readSeen(path string) map[string]bool {
	seen := map[string]bool{}
	data, err := bounded.ReadFile(path, 1<<20)
	if err != nil {
		return seen
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		seen[sc.Text()] = true
	}
	return seen
}

func appendSeen(path, digest string, items []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, it := range items {
		b.WriteString(digest + " " + it + "\n")
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
