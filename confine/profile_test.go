package confine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestScopeOf(t *testing.T) {
	cases := []struct {
		declared string
		granted  Grants
		want     Scope
	}{
		{"", Grants{}, ScopeDefault},
		{"", Grants{Filesystem: "project"}, ScopeDefault},
		{"none", Grants{}, ScopeNone},
		{"project", Grants{}, ScopeNone},                         // declared, not granted
		{"project", Grants{Filesystem: "project"}, ScopeProject}, // granted
		{"plugin", Grants{Filesystem: "project"}, ScopeNone},     // granted another scope
		{"plugin", Grants{Filesystem: "plugin"}, ScopePlugin},
		{"home", Grants{Filesystem: "home"}, ScopeNone}, // no defined bound
	}
	for _, c := range cases {
		if got := ScopeOf(c.declared, c.granted); got != c.want {
			t.Errorf("ScopeOf(%q, %+v) = %s, want %s", c.declared, c.granted, got, c.want)
		}
	}
}

// A grant holding home or FLEDGE_HOME is split around them; one inside is
// kept; one that is home is dropped.
func TestDeriveHidesHomeAndState(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(root, "home")
	fh := filepath.Join(home, ".config", "fledge")
	proj := filepath.Join(root, "proj")
	for _, d := range []string{home + "/.ssh", fh + "/plugins/p", fh + "/plugins/.data/p/files", proj, root + "/tmpdir", root + "/other/deep"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	at := Places{Home: home, FledgeHome: fh, PluginRoot: fh + "/plugins/p", Data: fh + "/plugins/.data/p/files",
		Temp: root + "/tmpdir", Project: []string{root}}
	p := Derive("", Grants{}, at)
	all := strings.Join(append(append(p.ReadExec, p.Read...), p.Write...), "\n")
	for _, bad := range []string{root + "\n", home + "\n", fh + "\n"} {
		if strings.Contains(all+"\n", bad) {
			t.Errorf("profile grants %s:\n%s", strings.TrimSpace(bad), all)
		}
	}
	for _, want := range []string{proj, root + "/other", fh + "/plugins/p", fh + "/plugins/.data/p/files"} {
		if !slices.Contains(p.Write, want) {
			t.Errorf("Write lacks %s: %v", want, p.Write)
		}
	}
	// A project that is home is not granted at all.
	at.Project = []string{home}
	p = Derive("project", Grants{Filesystem: "project"}, at)
	if slices.Contains(p.Read, home) || len(p.Dropped) == 0 {
		t.Errorf("home as the project: read %v, dropped %v", p.Read, p.Dropped)
	}
}

func TestToolDirs(t *testing.T) {
	got := toolDirs([]string{"/nonexistent/u/.pyenv/shims", "/nonexistent/u/.local/bin", "/usr/bin", "relative/bin", ""})
	want := []string{"/nonexistent/u/.pyenv", "/nonexistent/u/.local/bin", "/usr/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("toolDirs = %v, want %v", got, want)
	}
}
