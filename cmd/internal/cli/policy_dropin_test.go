package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The drop-ins beside the system policy (policy.d/*.toml) are system
// layers: policy --json lists each with its protection and what else the
// directory holds; one another uid owns, or that its group may write,
// makes the system policy unprotected (audit warns, [protection] require
// refuses runs); one that does not parse refuses runs as an unreadable
// policy does.
func TestSystemPolicyDropIns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs files owned by root and by another user: run as root (CI does)")
	}
	t.Parallel()
	f := newE2EFixture(t)
	dir := filepath.Join(t.TempDir(), "etc", "fledge")
	drop := filepath.Join(dir, "policy.d")
	if err := os.MkdirAll(drop, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := drop; d != filepath.Dir(filepath.Dir(filepath.Dir(dir))); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	sys := filepath.Join(dir, "policy.toml")
	team := filepath.Join(drop, "10-team.toml")
	for p, body := range map[string]string{
		sys:                             "[protection]\nrequire = true\n",
		team:                            "[hooks]\nunverified = false\n",
		filepath.Join(drop, "NOTES.md"): "not policy",
	} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	local := filepath.Join(t.TempDir(), "x")
	for p, body := range e2ePluginToml("x", "1.0.0") {
		os.MkdirAll(filepath.Dir(filepath.Join(local, p)), 0o755)
		os.WriteFile(filepath.Join(local, p), []byte(body), 0o755)
	}
	if code, out, errOut := f.fledgeWithSystem(sys, "plugins", "install", local, "--copy", "--yes"); code != 0 {
		t.Fatalf("install: %d\n%s\n%s", code, out, errOut)
	}
	type dropIn struct {
		File      string `json:"file"`
		Protected bool   `json:"protected"`
		Reason    string `json:"unprotected_reason"`
	}
	var pol struct {
		Protected *bool    `json:"protected"`
		Reason    string   `json:"unprotected_reason"`
		DropIns   []dropIn `json:"drop_ins"`
		Ignored   []string `json:"drop_ins_ignored"`
		Layers    []struct{ File, Scope string }
	}
	code, out, _ := f.fledgeWithSystem(sys, "plugins", "policy", "--json")
	if json.Unmarshal([]byte(out), &pol); code != 0 || pol.Protected == nil || !*pol.Protected {
		if up := pol.Reason; up != "" && !strings.Contains(up, dir) {
			t.Skipf("the temporary directory's parents are not protected here: %s", up)
		}
		t.Fatalf("root-owned policy and drop-in: %s", out)
	}
	if len(pol.DropIns) != 1 || pol.DropIns[0] != (dropIn{File: team, Protected: true}) ||
		len(pol.Ignored) != 1 || pol.Ignored[0] != filepath.Join(drop, "NOTES.md") ||
		len(pol.Layers) != 2 || pol.Layers[1].File != team || pol.Layers[1].Scope != "system" {
		t.Fatalf("policy --json does not show the drop-in as a system layer and the ignored file: %s", out)
	}
	if _, text, _ := f.fledgeWithSystem(sys, "plugins", "policy"); !strings.Contains(text, filepath.Join(drop, "NOTES.md")+" is not read") {
		t.Errorf("policy does not say what it ignores:\n%s", text)
	}
	if code, out, errOut := f.fledgeWithSystem(sys, "x"); code != 0 {
		t.Fatalf("run under a protected policy: %d\n%s\n%s", code, out, errOut)
	}

	for _, spoil := range []struct {
		name string
		do   func() error
		want string
	}{
		{"owned by another uid", func() error { return os.Chown(team, 4242, 4242) }, team + " is owned by uid 4242, not root"},
		{"group-writable", func() error { return os.Chmod(team, 0o664) }, team + " is writable by its group"},
		{"in a group-writable directory", func() error { return os.Chmod(drop, 0o775) }, "its directory " + drop + " is writable by its group"},
	} {
		if err := spoil.do(); err != nil {
			t.Fatal(err)
		}
		pol.Protected, pol.Reason, pol.DropIns = nil, "", nil
		code, out, _ := f.fledgeWithSystem(sys, "plugins", "policy", "--json")
		if json.Unmarshal([]byte(out), &pol); code != 0 || pol.Protected == nil || *pol.Protected || !strings.Contains(pol.Reason, spoil.want) ||
			len(pol.DropIns) != 1 || pol.DropIns[0].Protected || !strings.Contains(pol.DropIns[0].Reason, spoil.want) {
			t.Errorf("%s: policy --json: %s", spoil.name, out)
		}
		var audit struct {
			Unprotected *string `json:"policy_unprotected"`
		}
		code, out, _ = f.fledgeWithSystem(sys, "plugins", "audit", "--json", "--strict")
		if json.Unmarshal([]byte(out), &audit); code != ExitFailure || audit.Unprotected == nil || !strings.Contains(*audit.Unprotected, spoil.want) {
			t.Errorf("%s: audit --strict: exit %d\n%s", spoil.name, code, out)
		}
		code, out, errOut := f.fledgeWithSystem(sys, "plugins", "run", "x", "--json")
		if code == 0 || !strings.Contains(out, `"policy_denied"`) || !strings.Contains(out, "[protection] require") || !strings.Contains(out, spoil.want) {
			t.Errorf("%s: run: exit %d\n%s\n%s", spoil.name, code, out, errOut)
		}
		os.Chown(team, 0, 0)
		os.Chmod(team, 0o644)
		os.Chmod(drop, 0o755)
	}
	if code, out, errOut := f.fledgeWithSystem(sys, "x"); code != 0 {
		t.Fatalf("run once it is protected again: %d\n%s\n%s", code, out, errOut)
	}

	// A drop-in that does not parse: nothing runs until it is fixed.
	bad := filepath.Join(drop, "20-typo.toml")
	os.WriteFile(bad, []byte("[hooks\n"), 0o644)
	code, out, errOut := f.fledgeWithSystem(sys, "plugins", "run", "x", "--json")
	if code == 0 || !strings.Contains(out, bad) {
		t.Errorf("run under a drop-in that does not parse: exit %d\n%s\n%s", code, out, errOut)
	}
}
