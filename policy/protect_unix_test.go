//go:build unix

package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A policy file is protected when it and every directory above it are
// owned by root and writable by no one else (a sticky directory may be);
// another owner, a group- or other-writable file or directory, or a link
// into such a place makes it unprotected, with the reason and the fix.
func TestCheckProtected(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("judging ownership needs files owned by root and by another user: run as root (CI does)")
	}
	// A root-owned chain under the temporary directory (which may be a
	// sticky, world-writable one such as /tmp).
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if up := unprotected(filepath.Dir(root)); up != "" {
		t.Skipf("the temporary directory's parents are not protected here: %s", up)
	}
	fresh := func(t *testing.T) (dir, file string) {
		dir, err := os.MkdirTemp(root, "etc")
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, 0o755)
		file = write(t, dir, "policy.toml", "[pins]\nrequire = \"tag\"\n")
		return dir, file
	}
	_, file := fresh(t)
	if p := CheckProtected(file); !p.Protected {
		t.Fatalf("a root-owned 0644 file in root-owned 0755 directories: %s", p.Reason)
	}
	for _, c := range []struct {
		name  string
		spoil func(dir, file string) error
		want  string
	}{
		{"owned by another uid", func(_, f string) error { return os.Chown(f, 4242, 0) }, "owned by uid 4242, not root"},
		{"group-writable", func(_, f string) error { return os.Chmod(f, 0o664) }, "writable by its group (mode 0664)"},
		{"other-writable", func(_, f string) error { return os.Chmod(f, 0o646) }, "writable by anyone"},
		{"in a group-writable directory", func(d, _ string) error { return os.Chmod(d, 0o775) }, "its directory " + "DIR" + " is writable by its group"},
		{"in a directory another uid owns", func(d, _ string) error { return os.Chown(d, 4242, 0) }, "its directory DIR is owned by uid 4242"},
		{"a link to an unprotected file", func(d, f string) error {
			other := filepath.Join(t.TempDir(), "elsewhere.toml")
			if err := os.WriteFile(other, nil, 0o644); err != nil {
				return err
			}
			os.Chown(other, 4242, 0)
			os.Remove(f)
			return os.Symlink(other, f)
		}, "elsewhere.toml is owned by uid 4242"},
	} {
		dir, file := fresh(t)
		if err := c.spoil(dir, file); err != nil {
			t.Fatal(err)
		}
		p := CheckProtected(file)
		want := strings.ReplaceAll(c.want, "DIR", dir)
		if p.Protected || !strings.Contains(p.Reason, want) || !strings.Contains(p.Reason, "fix it as root: chown root") {
			t.Errorf("%s: %+v, want unprotected: %q", c.name, p, want)
		}
	}
	// A sticky world-writable directory above is fine: others cannot
	// replace what root owns in it.
	dir, _ := fresh(t)
	if err := os.Chmod(dir, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "fledge")
	os.Mkdir(sub, 0o755)
	if p := CheckProtected(write(t, sub, "policy.toml", "")); !p.Protected {
		t.Errorf("under a sticky directory: %s", p.Reason)
	}
}

// Load judges the system file only, and [protection] require refuses to
// run plugins under an unprotected one, naming the rule and the reason.
func TestRunRefusedUnderUnprotectedSystemPolicy(t *testing.T) {
	dir := t.TempDir()
	sys := write(t, dir, "policy.toml", "[protection]\nrequire = true\n")
	os.Chmod(sys, 0o666)
	s, err := Load(Inputs{System: sys})
	if err != nil {
		t.Fatal(err)
	}
	if s.SystemProtection == nil || s.SystemProtection.Protected {
		t.Fatalf("an other-writable system policy: %+v", s.SystemProtection)
	}
	d := s.CheckRunProtected()
	if d == nil || d.Rule != "[protection] require" || !strings.Contains(d.Reason, "writable by anyone") {
		t.Errorf("CheckRunProtected: %+v", d)
	}
	env := write(t, dir, "env.toml", "[protection]\nrequire = true\n")
	os.Chmod(env, 0o666)
	if s, _ := Load(Inputs{Env: env}); s.SystemProtection != nil || s.CheckRunProtected() != nil {
		t.Error("a FLEDGE_POLICY file is judged as the system policy")
	}
	if s.Effective().ProtectRequire == nil {
		t.Error("Effective does not show [protection] require")
	}
}

// Each drop-in is judged as the system policy is: one that another user
// owns, or that its group may write, or in a drop-in directory its group
// may write, makes the system policy unprotected, with that file's reason,
// and [protection] require (in any layer) refuses runs.
func TestDropInProtection(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("judging ownership needs files owned by root and by another user: run as root (CI does)")
	}
	root := t.TempDir()
	os.Chmod(root, 0o755)
	if up := unprotected(filepath.Dir(root)); up != "" {
		t.Skipf("the temporary directory's parents are not protected here: %s", up)
	}
	sys := write(t, root, "policy.toml", "[protection]\nrequire = true\n")
	d := filepath.Join(root, DropInDirName)
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(d, 0o755)
	drop := write(t, d, "10-team.toml", "[pins]\nrequire = \"tag\"\n")
	load := func() *Set {
		t.Helper()
		s, err := Load(Inputs{System: sys})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := load(); !s.SystemProtection.Protected || s.CheckRunProtected() != nil || len(s.DropIns) != 1 || !s.DropIns[0].Protection.Protected {
		t.Fatalf("root's alone: %+v %+v", s.SystemProtection, s.DropIns)
	}
	for _, c := range []struct {
		name  string
		spoil func() error
		want  string
	}{
		{"owned by another uid", func() error { return os.Chown(drop, 4242, 4242) }, drop + " is owned by uid 4242, not root"},
		{"group-writable", func() error { return os.Chmod(drop, 0o664) }, drop + " is writable by its group"},
		{"in a group-writable directory", func() error { return os.Chmod(d, 0o775) }, "its directory " + d + " is writable by its group"},
	} {
		if err := c.spoil(); err != nil {
			t.Fatal(err)
		}
		s := load()
		if p := s.SystemProtection; p.Protected || !strings.Contains(p.Reason, c.want) {
			t.Errorf("%s: %+v, want unprotected saying %q", c.name, p, c.want)
		}
		if p := s.DropIns[0].Protection; p.Protected || !strings.Contains(p.Reason, c.want) {
			t.Errorf("%s: the drop-in's own protection %+v", c.name, p)
		}
		if den := s.CheckRunProtected(); den == nil || !strings.Contains(den.Reason, c.want) || den.File != sys {
			t.Errorf("%s: run not refused as [protection] require says: %v", c.name, den)
		}
		os.Chown(drop, 0, 0)
		os.Chmod(drop, 0o644)
		os.Chmod(d, 0o755)
	}
}
