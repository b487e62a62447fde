//go:build unix

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A system policy another user owns, or that its group may write, is
// reported as unprotected by policy and audit (and still applied), and
// with [protection] require = true no plugin runs under it; once it is
// root's alone again, plugins run.
func TestUnprotectedSystemPolicyReportedAndRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs files owned by root and by another user: run as root (CI does)")
	}
	t.Parallel()
	f := newE2EFixture(t)
	dir := filepath.Join(t.TempDir(), "etc", "fledge")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != filepath.Dir(filepath.Dir(filepath.Dir(dir))); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	sys := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(sys, []byte("[protection]\nrequire = true\n[hooks]\nunverified = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "x")
	for p, body := range e2ePluginToml("x", "1.0.0") {
		os.MkdirAll(filepath.Dir(filepath.Join(local, p)), 0o755)
		os.WriteFile(filepath.Join(local, p), []byte(body), 0o755)
	}
	if code, out, errOut := f.fledgeWithSystem(sys, "plugins", "install", local, "--copy", "--yes"); code != 0 {
		t.Fatalf("install: %d\n%s\n%s", code, out, errOut)
	}
	var pol struct {
		Protected  *bool  `json:"protected"`
		Reason     string `json:"unprotected_reason"`
		Protection struct {
			Require *struct{ Value bool } `json:"require"`
		} `json:"protection"`
	}
	var audit struct {
		Unprotected *string `json:"policy_unprotected"`
	}
	code, out, _ := f.fledgeWithSystem(sys, "plugins", "policy", "--json")
	if json.Unmarshal([]byte(out), &pol); code != 0 || pol.Protected == nil || !*pol.Protected {
		if up := pol.Reason; up != "" && !strings.Contains(up, dir) {
			t.Skipf("the temporary directory's parents are not protected here: %s", up)
		}
		t.Fatalf("a root-owned policy: %s", out)
	}
	if code, out, errOut := f.fledgeWithSystem(sys, "x"); code != 0 || !strings.Contains(out, "x 1.0.0") {
		t.Fatalf("run under a protected policy: %d\n%s\n%s", code, out, errOut)
	}

	for _, spoil := range []struct {
		name string
		do   func() error
		want string
	}{
		{"owned by another uid", func() error { return os.Chown(sys, 4242, 4242) }, "is owned by uid 4242, not root"},
		{"group-writable", func() error { return os.Chmod(sys, 0o664) }, "writable by its group"},
		{"in a group-writable directory", func() error { return os.Chmod(dir, 0o775) }, "its directory " + dir + " is writable by its group"},
	} {
		if err := spoil.do(); err != nil {
			t.Fatal(err)
		}
		code, out, _ := f.fledgeWithSystem(sys, "plugins", "policy", "--json")
		pol.Protected, pol.Reason = nil, ""
		if json.Unmarshal([]byte(out), &pol); code != 0 || pol.Protected == nil || *pol.Protected || !strings.Contains(pol.Reason, spoil.want) ||
			pol.Protection.Require == nil || !pol.Protection.Require.Value {
			t.Errorf("%s: policy --json: %s", spoil.name, out)
		}
		code, out, _ = f.fledgeWithSystem(sys, "plugins", "audit", "--json", "--strict")
		audit.Unprotected = nil
		if json.Unmarshal([]byte(out), &audit); code != ExitFailure || audit.Unprotected == nil || !strings.Contains(*audit.Unprotected, spoil.want) {
			t.Errorf("%s: audit --strict: exit %d\n%s", spoil.name, code, out)
		}
		code, out, errOut := f.fledgeWithSystem(sys, "plugins", "run", "x", "--json")
		if code == 0 || !strings.Contains(out, `"policy_denied"`) || !strings.Contains(out, "[protection] require") || !strings.Contains(out, spoil.want) {
			t.Errorf("%s: run: exit %d\n%s\n%s", spoil.name, code, out, errOut)
		}
		// Put it back.
		os.Chown(sys, 0, 0)
		os.Chmod(sys, 0o644)
		os.Chmod(dir, 0o755)
	}
	if code, out, errOut := f.fledgeWithSystem(sys, "x"); code != 0 {
		t.Fatalf("run once it is protected again: %d\n%s\n%s", code, out, errOut)
	}
	// Without the rule, an unprotected policy is reported, and applied.
	os.WriteFile(sys, []byte("[hooks]\nunverified = false\n"), 0o644)
	os.Chmod(sys, 0o666)
	if code, out, errOut := f.fledgeWithSystem(sys, "x"); code != 0 {
		t.Errorf("run under an unprotected policy without [protection] require: %d\n%s\n%s", code, out, errOut)
	}
	if _, out, _ := f.fledgeWithSystem(sys, "plugins", "policy"); !strings.Contains(out, "! the system policy is not protected (it still applies") || !strings.Contains(out, "[hooks] unverified") {
		t.Errorf("policy does not warn, or does not apply the unprotected file:\n%s", out)
	}
}
