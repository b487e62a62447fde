package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The drop-ins beside the system policy are more system layers, read in
// lexical order after the system file and before FLEDGE_POLICY: each can
// only narrow (a drop-in's allow list cannot let in what the system file
// leaves out), and what is not a *.toml file is listed, not read.
func TestDropInLayers(t *testing.T) {
	dir := t.TempDir()
	sys := write(t, dir, "policy.toml", "[sources]\nallow = [\"github.com/acme/*\"]\n")
	d := filepath.Join(dir, DropInDirName)
	if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := write(t, d, "20-deny.toml", "[sources]\ndeny = [\"github.com/acme/bad\"]\n")
	a := write(t, d, "10-caps.toml", "[capabilities]\nunverified = [\"store\"]\n")
	w := write(t, d, "30-widen.toml", "[sources]\nallow = [\"github.com/acme/x\", \"github.com/evil/*\"]\n")
	write(t, d, "README", "not policy")
	write(t, d, "40-off.toml.bak", "[sources]\ndeny = [\"**\"]\n")
	env := write(t, t.TempDir(), "env.toml", "[hooks]\nunverified = false\n")

	s, err := Load(Inputs{System: sys, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, l := range s.Layers() {
		files = append(files, l.File)
	}
	if want := []string{sys, a, b, w, env}; !slices.Equal(files, want) {
		t.Fatalf("layers %v, want %v", files, want)
	}
	for _, l := range s.Layers()[:4] {
		if l.Scope != ScopeSystem {
			t.Errorf("%s is scope %q, want %q", l.File, l.Scope, ScopeSystem)
		}
	}
	if want := []string{filepath.Join(d, "40-off.toml.bak"), filepath.Join(d, "README"), filepath.Join(d, "sub")}; !slices.Equal(s.DropInsIgnored, want) {
		t.Errorf("ignored %v, want %v", s.DropInsIgnored, want)
	}
	if len(s.DropIns) != 3 || s.DropIns[0].File != a || s.SystemProtection == nil {
		t.Errorf("drop-ins %+v, protection %v", s.DropIns, s.SystemProtection)
	}
	for _, c := range []struct{ url, file string }{
		{"https://github.com/evil/x", sys},   // not widened by 30-widen
		{"https://github.com/acme/bad", b},   // denied by 20-deny
		{"https://github.com/acme/other", w}, // narrowed by 30-widen
	} {
		if d := s.CheckSource(Source{URL: c.url}); d == nil || d.File != c.file {
			t.Errorf("%s: %v, want refused by %s", c.url, d, c.file)
		}
	}
	if d := s.CheckSource(Source{URL: "https://github.com/acme/x"}); d != nil {
		t.Errorf("github.com/acme/x refused: %v", d)
	}
	if d := s.Allows("unverified", "exec"); d == nil || d.File != a {
		t.Errorf("exec for unverified: %v, want refused by %s", d, a)
	}

	// Without the system file the drop-ins still apply.
	os.Remove(sys)
	if s, err := Load(Inputs{System: sys}); err != nil || s.SystemFound || len(s.Layers()) != 3 || s.SystemProtection == nil {
		t.Errorf("drop-ins without a system file: %v, %v", s, err)
	}
}

// A drop-in that cannot be read or is not a valid policy fails the whole
// policy, as the system file would, naming the file; so does a drop-in
// directory that cannot be listed.
func TestDropInFailsClosed(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(d string)
		want string
	}{
		{"not TOML", func(d string) { write(t, d, "10-bad.toml", "[sources\n") }, "10-bad.toml"},
		{"unknown key", func(d string) { write(t, d, "10-bad.toml", "[sources]\nalow = []\n") }, "alow"},
		{"a directory named .toml", func(d string) { os.Mkdir(filepath.Join(d, "10-dir.toml"), 0o755) }, "10-dir.toml"},
	} {
		dir := t.TempDir()
		d := filepath.Join(dir, DropInDirName)
		os.Mkdir(d, 0o755)
		c.make(d)
		_, err := Load(Inputs{System: filepath.Join(dir, "policy.toml")})
		var inv *InvalidError
		if !errors.As(err, &inv) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an *InvalidError naming %q", c.name, err, c.want)
		}
	}
	dir := t.TempDir()
	write(t, dir, DropInDirName, "a file where the directory should be")
	if _, err := Load(Inputs{System: filepath.Join(dir, "policy.toml")}); err == nil || !strings.Contains(err.Error(), DropInDirName) {
		t.Errorf("an unlistable drop-in directory: %v", err)
	}
}
