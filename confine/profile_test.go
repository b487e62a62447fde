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
	got := toolDirs(newResolver(), []string{"/nonexistent/u/.pyenv/shims", "/nonexistent/u/.local/bin", "/usr/bin", "relative/bin", ""})
	want := []string{"/nonexistent/u/.pyenv", "/nonexistent/u/.local/bin", "/usr/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("toolDirs = %v, want %v", got, want)
	}
}

// A build inside a git work tree reads the work tree (Go finds go.mod and
// go.work above a live-linked plugin); a tree under FLEDGE_HOME, a work
// tree holding home, and "/" are never widened to.
func TestDeriveBuildReadsItsWorkTree(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(root, "home")
	fh := filepath.Join(home, ".config", "fledge")
	repo := filepath.Join(root, "src", "repo")
	plugin := filepath.Join(repo, "examples", "fledge-plugin-x")
	staged := filepath.Join(fh, "plugins", ".staging", "x")
	for _, d := range []string{home + "/.ssh", repo + "/.git", plugin, staged} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	at := Places{Home: home, FledgeHome: fh, Temp: filepath.Join(root, "tmp")}
	if p := DeriveBuild(plugin, at); !slices.Contains(p.Read, repo) {
		t.Errorf("a build in %s does not read its work tree %s: %v", plugin, repo, p.Read)
	}
	if p := DeriveBuild(repo, at); slices.Contains(p.Read, repo) || !slices.Contains(p.Write, repo) {
		t.Errorf("a build at the work tree's top: read %v, write %v", p.Read, p.Write)
	}
	// FLEDGE_HOME inside a work tree (a dotfiles repository): a staged tree
	// builds on its own, and home's files stay out of reach.
	if err := os.MkdirAll(home+"/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	p := DeriveBuild(staged, at)
	for _, r := range append(append(p.Read, p.ReadExec...), p.Write...) {
		if under(home, r) && !under(staged, r) && !under(filepath.Join(home, ".cache"), r) {
			t.Errorf("a staged build reaches %s", r)
		}
	}
	// A work tree holding home is not read.
	if err := os.MkdirAll(root+"/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "elsewhere", "plugin")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if p := DeriveBuild(other, at); slices.Contains(p.Read, root) {
		t.Errorf("a build reads a work tree holding home: %v", p.Read)
	}
}

// Enforces is the one answer to "does the kernel hold this plugin here";
// StatusOf's reasons come from it.
func TestEnforces(t *testing.T) {
	full := Support{ABI: 7, Files: true, Network: true}
	old := Support{ABI: 3, Files: true, Reason: "ABI 3"}
	none := Support{Reason: "no Landlock"}
	for _, c := range []struct {
		s       Support
		network bool
		off     string
		ok      bool
		why     string
	}{
		{full, true, "", true, ""},
		{full, true, "FLEDGE_CONFINE=off", false, "turned off by FLEDGE_CONFINE=off"},
		{old, false, "", true, ""},
		{old, true, "", false, "ABI 3"},
		{none, false, "", false, "no Landlock"},
	} {
		if ok, why := c.s.Enforces(c.network, c.off); ok != c.ok || why != c.why {
			t.Errorf("%+v.Enforces(%v, %q) = %v, %q; want %v, %q", c.s, c.network, c.off, ok, why, c.ok, c.why)
		}
	}
	if st := StatusOf("none", Grants{}, old, ""); st.Enforced || st.Reason != "its files are, its network is not: ABI 3" {
		t.Errorf("files only: %+v", st)
	}
	if st := StatusOf("", Grants{}, old, ""); !st.Enforced {
		t.Errorf("undeclared on ABI 3 (network allowed): %+v", st)
	}
}

// The resolver gives what filepath.EvalSymlinks gives, made absolute,
// for every kind of path a profile is drawn from: plain, through
// relative, absolute and chained links, to files, missing, and in a loop.
func TestResolverMatchesEvalSymlinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/b/c", "x/y"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a/b/c/f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"rel":      "a/b",
		"abs":      filepath.Join(root, "x"),
		"chain":    "rel",
		"file":     "a/b/c/f",
		"a/up":     "../x/y",
		"dangling": "nowhere",
		"loop1":    "loop2",
		"loop2":    "loop1",
		"x/y/back": "../../a",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	rs := newResolver()
	for _, p := range []string{"a", "a/b/c", "rel", "rel/c", "rel/c/f", "abs/y", "chain/c", "file", "a/up", "a/up/back/b",
		"dangling", "loop1/x", "missing", "a/missing/deeper", "rel/../x", "chain/c/f/x", "/", "/usr/bin"} {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		want, werr := filepath.EvalSymlinks(p)
		got, gerr := rs.eval(p)
		if (werr == nil) != (gerr == nil) || got != want {
			t.Errorf("eval(%s) = %q, %v; EvalSymlinks: %q, %v", p, got, gerr, want, werr)
		}
	}
}
