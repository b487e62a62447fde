//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A native plugin's environment, end to end: a variable its manifest
// declares is withheld until granted by name (env:NAME), named in one note
// with that command but never its value; grant gives it, revoke takes it
// back, the admin policy refuses and narrows it; every surface shows it.
func TestEnvironmentGrantedByName(t *testing.T) {
	t.Parallel()
	const token = "ghp_processtestprocesstestprocesstest01"
	e := newHEnv(t)
	e.confined = true
	e.extra = []string{"GITHUB_TOKEN=" + token, "AWS_SECRET_ACCESS_KEY=awsprocesstest"}
	files := hPlugin("fledge-plugin-envp", "1.0.0", "\n[capabilities]\nenvironment = [\"GITHUB_TOKEN\"]\n")
	files["bin/envp"] = "#!/bin/sh\nenv\n"
	e.local("envp", files)
	e.ok("plugins", "install", "./envp", "--copy", "--grant", "none", "--json")

	const grantCmd = "fledge plugins grant fledge-plugin-envp env:GITHUB_TOKEN"
	r := e.ok("envp")
	if strings.Contains(string(r.out), "GITHUB_TOKEN=") || strings.Contains(string(r.out), "AWS_SECRET_ACCESS_KEY=") {
		t.Errorf("not granted, yet in its environment:\n%s", r.out)
	}
	if strings.Count(string(r.err), "is not given") != 1 || !strings.Contains(string(r.err), "not given GITHUB_TOKEN") || !strings.Contains(string(r.err), grantCmd) {
		t.Errorf("stderr does not name it with the grant command once:\n%s", r.err)
	}
	if strings.Contains(string(r.err)+string(r.out), token) {
		t.Errorf("the value was shown:\n%v", r)
	}
	info := hJSON(t, e.ok("plugins", "info", "envp", "--json"))
	if got := hStrings(info, "plugin", "requested", "environment"); !slices.Equal(got, []string{"GITHUB_TOKEN"}) {
		t.Errorf("info requested.environment = %v", got)
	}

	g := hJSON(t, e.ok("plugins", "grant", "envp", "env:GITHUB_TOKEN", "--json"))
	if !slices.Equal(hStrings(g, "changed"), []string{"env:GITHUB_TOKEN"}) || !slices.Equal(hStrings(g, "capabilities", "environment"), []string{"GITHUB_TOKEN"}) {
		t.Errorf("grant --json: %v", g)
	}
	if r := e.ok("envp"); !strings.Contains(string(r.out), "GITHUB_TOKEN="+token) || strings.Contains(string(r.out), "AWS_SECRET_ACCESS_KEY=") || strings.Contains(string(r.err), "is not given") {
		t.Errorf("granted, the run:\n%v", r)
	}
	for what, v := range map[string]any{
		"list":  hByName(hJSON(t, e.ok("plugins", "list", "--json")), "fledge-plugin-envp", "plugins"),
		"audit": hByName(hJSON(t, e.ok("plugins", "audit", "--json")), "fledge-plugin-envp", "audit"),
	} {
		if got := hStrings(v, "granted", "environment"); !slices.Equal(got, []string{"GITHUB_TOKEN"}) {
			t.Errorf("%s: granted.environment = %v", what, got)
		}
	}
	if got := hStrings(hByName(hJSON(t, e.ok("plugins", "tools", "--json")), "envp", "tools"), "grants", "environment"); !slices.Equal(got, []string{"GITHUB_TOKEN"}) {
		t.Errorf("tools: grants.environment = %v", got)
	}
	recs := e.logRecords()
	if last := recs[len(recs)-1]; hStr(last, "action") != "grant" || !slices.Equal(hStrings(last, "granted"), []string{"env:GITHUB_TOKEN"}) {
		t.Errorf("grant log: %v", last)
	}
	if d := e.fail("capability_not_declared", "plugins", "grant", "envp", "env:AWS_SECRET_ACCESS_KEY"); !strings.Contains(hStr(d, "error", "message"), "does not request env:AWS_SECRET_ACCESS_KEY") {
		t.Errorf("a variable it does not declare: %v", d)
	}

	// The admin policy narrows it at run time, and refuses it anew.
	cfg := filepath.Join(e.fh, "config.toml")
	if err := os.WriteFile(cfg, []byte("[policy.capabilities]\nlocal = [\"store\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := e.ok("envp"); strings.Contains(string(r.out), "GITHUB_TOKEN=") || !strings.Contains(string(r.err), "not given GITHUB_TOKEN, which plugins.toml grants and the admin policy withholds") {
		t.Errorf("narrowed by the policy, the run:\n%v", r)
	}
	e.ok("plugins", "revoke", "envp", "env:GITHUB_TOKEN")
	if d := e.fail("policy_denied", "plugins", "grant", "envp", "env:GITHUB_TOKEN"); !strings.Contains(hStr(d, "error", "message"), "[policy.capabilities] local") {
		t.Errorf("the policy refuses the grant: %v", d)
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	if r := e.ok("envp"); strings.Contains(string(r.out), "GITHUB_TOKEN=") {
		t.Errorf("revoked, yet in its environment:\n%s", r.out)
	}
}

// Confinement turned off for every plugin (unconfine --all) is recorded in
// plugins.toml and the grant log, shown by audit, gives plugins your whole
// environment, is refused by allow_off = false and undone by confine --all;
// FLEDGE_CONFINE=off in the auditing process is said too.
func TestUnconfineAllRecordedAndShown(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.confined = true
	e.extra = []string{"UNRELATED_SETTING=1"}
	files := hPlugin("fledge-plugin-envp", "1.0.0", "")
	files["bin/envp"] = "#!/bin/sh\nenv\n"
	e.local("envp", files)
	e.ok("plugins", "install", "./envp", "--copy", "--yes", "--json")
	if r := e.ok("envp"); strings.Contains(string(r.out), "UNRELATED_SETTING") {
		t.Errorf("confined, it got a variable outside the base environment:\n%s", r.out)
	}
	audit := hJSON(t, e.ok("plugins", "audit", "--json"))
	if hGet(audit, "unconfined_all") != nil || hGet(audit, "confine_off_here") != false {
		t.Errorf("audit before: %v %v", hGet(audit, "unconfined_all"), hGet(audit, "confine_off_here"))
	}

	doc := hJSON(t, e.ok("plugins", "unconfine", "--all", "--json"))
	if hGet(doc, "changed") != true || hGet(doc, "all") != true || !strings.Contains(hStr(doc, "unconfined"), "for every plugin") {
		t.Fatalf("unconfine --all --json: %v", doc)
	}
	if toml := string(e.pluginsToml()); !strings.HasPrefix(strings.TrimSpace(toml[strings.Index(toml, "unconfined_by"):]), "unconfined_by = ") {
		t.Errorf("plugins.toml:\n%s", toml)
	}
	recs := e.logRecords()
	if last := recs[len(recs)-1]; hStr(last, "action") != "unconfine" || hStr(last, "plugin") != "" || hStr(last, "user") == "" {
		t.Errorf("grant log: %v", last)
	}
	if v, code := e.verifyLog(); code != 0 {
		t.Errorf("the grant log does not verify: %v", v)
	}
	audit = hJSON(t, e.ok("plugins", "audit", "--json"))
	if !strings.Contains(hStr(audit, "unconfined_all"), "for every plugin") ||
		!strings.Contains(hStr(hByName(audit, "fledge-plugin-envp", "audit"), "confinement", "reason"), "for every plugin") {
		t.Errorf("audit: %v", audit)
	}
	if r := e.ok("plugins", "audit"); !strings.Contains(string(r.out), "kernel confinement is off for every plugin") {
		t.Errorf("audit's text:\n%s", r.out)
	}
	if r := e.ok("envp"); !strings.Contains(string(r.out), "UNRELATED_SETTING=1") || !strings.Contains(string(r.err), "runs unconfined: turned off by ") {
		t.Errorf("unconfined, the run:\n%v", r)
	}

	cfg := filepath.Join(e.fh, "config.toml")
	if err := os.WriteFile(cfg, []byte("[policy.confinement]\nallow_off = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.ok("plugins", "confine", "--all")
	if d := e.fail("policy_denied", "plugins", "unconfine", "--all"); !strings.Contains(hStr(d, "error", "message"), "allow_off") {
		t.Errorf("allow_off = false: %v", d)
	}
	if strings.Contains(string(e.pluginsToml()), "unconfined_by") {
		t.Errorf("confine --all left it off:\n%s", e.pluginsToml())
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}

	e.confined = false // FLEDGE_CONFINE=off
	if audit := hJSON(t, e.ok("plugins", "audit", "--json")); hGet(audit, "confine_off_here") != true {
		t.Errorf("audit under FLEDGE_CONFINE=off: %v", hGet(audit, "confine_off_here"))
	}
}
