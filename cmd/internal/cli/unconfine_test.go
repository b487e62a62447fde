//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plugins unconfine turns kernel confinement off for one plugin: recorded
// in plugins.toml and the grant log, shown as the reason by audit, info,
// list and tools, honoured by the runner and by its post_remove hook,
// refused where the policy forbids turning it off; plugins confine turns
// it back on.
func TestUnconfineOnePluginRecordedAndShown(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.confined = true
	e.local("plain", hPlugin("fledge-plugin-plain", "1.0.0", "\n[hooks]\npost_remove = \"true\"\n"))
	e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
	e.ok("plugins", "install", "./plain", "--copy", "--yes", "--grant", "hooks", "--json")
	e.ok("plugins", "install", "./other", "--copy", "--yes", "--json")
	before := hStr(hJSON(t, e.ok("plugins", "audit", "--json")), "audit", 1, "confinement", "reason")

	doc := hJSON(t, e.ok("plugins", "unconfine", "plain", "--json"))
	if hGet(doc, "changed") != true || !strings.Contains(hStr(doc, "unconfined"), "for this plugin") {
		t.Fatalf("unconfine --json: %v", doc)
	}
	if again := hJSON(t, e.ok("plugins", "unconfine", "plain", "--json")); hGet(again, "changed") != false {
		t.Errorf("a second unconfine changed something: %v", again)
	}
	if toml := string(e.pluginsToml()); !strings.Contains(toml, "unconfined_by = ") || !strings.Contains(toml, "unconfined_at = ") {
		t.Errorf("plugins.toml does not record it:\n%s", toml)
	}
	var actions []string
	for _, r := range e.logRecords() {
		actions = append(actions, hStr(r, "action")+" "+hStr(r, "plugin"))
	}
	if got := strings.Join(actions, ", "); !strings.HasSuffix(got, "unconfine fledge-plugin-plain") {
		t.Errorf("grant log actions: %s", got)
	}
	if v, code := e.verifyLog(); code != 0 {
		t.Errorf("the grant log does not verify after unconfine: %v", v)
	}

	reasonIn := func(v any) string { return hStr(v, "confinement", "reason") }
	audit := hJSON(t, e.ok("plugins", "audit", "--json"))
	list := hJSON(t, e.ok("plugins", "list", "--json"))
	info := hJSON(t, e.ok("plugins", "info", "plain", "--json"))
	tools := hJSON(t, e.ok("plugins", "tools", "--json"))
	for what, v := range map[string]any{
		"audit": hByName(audit, "fledge-plugin-plain", "audit"), "list": hByName(list, "fledge-plugin-plain", "plugins"),
		"info": hGet(info, "plugin"), "tools": hByName(tools, "plain", "tools"),
	} {
		if r := reasonIn(v); !strings.HasPrefix(r, "turned off by ") || !strings.Contains(r, "for this plugin") || hGet(v, "confinement", "kernel_enforced") != false {
			t.Errorf("%s: confinement %v", what, hGet(v, "confinement"))
		}
	}
	if r := reasonIn(hByName(audit, "fledge-plugin-other", "audit")); strings.Contains(r, "for this plugin") {
		t.Errorf("the other plugin is unconfined too: %q", r)
	}
	if r := e.ok("plugins", "run", "plain"); !strings.Contains(string(r.err), "runs unconfined: turned off by ") || !strings.Contains(string(r.err), "for this plugin") {
		t.Errorf("run does not say it runs unconfined:\n%v", r)
	}

	cfg := filepath.Join(e.fh, "config.toml")
	if err := os.WriteFile(cfg, []byte("[policy.confinement]\nallow_off = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"plugins", "unconfine", "other"}, {"plugins", "run", "plain"}} {
		d := e.fail("policy_denied", args...)
		if msg := hStr(d, "error", "message"); !strings.Contains(msg, "[policy.confinement] allow_off") || !strings.Contains(msg, cfg) {
			t.Errorf("%v: %q", args, msg)
		}
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}

	if doc := hJSON(t, e.ok("plugins", "confine", "plain", "--json")); hGet(doc, "changed") != true || hStr(doc, "unconfined") != "" {
		t.Errorf("confine --json: %v", doc)
	}
	if after := hStr(hJSON(t, e.ok("plugins", "audit", "--json")), "audit", 1, "confinement", "reason"); after != before {
		t.Errorf("after confine, reason %q, want %q as before", after, before)
	}
	if strings.Contains(string(e.pluginsToml()), "unconfined_by") {
		t.Errorf("confine left the record unconfined:\n%s", e.pluginsToml())
	}

	// Its post_remove hook runs unconfined too, and says why.
	e.ok("plugins", "unconfine", "plain")
	if r := e.ok("plugins", "remove", "plain"); !strings.Contains(string(r.err), "post_remove hook runs unconfined: turned off by ") || !strings.Contains(string(r.err), "for this plugin") {
		t.Errorf("remove:\n%v", r)
	}
}

// A reinstall (as an update) of a plugin unconfined keeps it unconfined,
// and its build command runs unconfined, saying why.
func TestUnconfinedPluginBuildsUnconfinedOnReinstall(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.confined = true
	e.local("built", hPlugin("fledge-plugin-built", "1.0.0", "\n[hooks]\nbuild = \"true\"\n"))
	e.ok("plugins", "install", "./built", "--copy", "--yes", "--grant", "hooks", "--json")
	e.ok("plugins", "unconfine", "built")
	r := e.ok("plugins", "install", "./built", "--copy", "--force", "--yes", "--grant", "hooks")
	if !strings.Contains(string(r.err), "build hook runs unconfined: turned off by ") || !strings.Contains(string(r.err), "for this plugin") {
		t.Errorf("reinstall:\n%v", r)
	}
	if !strings.Contains(string(e.pluginsToml()), "unconfined_by = ") {
		t.Errorf("the reinstall dropped unconfine:\n%s", e.pluginsToml())
	}
}
