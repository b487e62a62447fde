package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // umask may have narrowed it
		t.Fatal(err)
	}
}

func TestCheckBinaries(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exec bits and symlinks are Unix here")
	}
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "evil"), "#!/bin/sh\n", 0o755)

	root := t.TempDir()
	writeFile(t, filepath.Join(root, "bin", "ok"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(root, "bin", "noexec"), "#!/bin/sh\n", 0o644)
	writeFile(t, filepath.Join(root, "lib", "real"), "#!/bin/sh\n", 0o700)
	if err := os.MkdirAll(filepath.Join(root, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"bin/inside":     "../lib/real",                      // relative, stays inside
		"bin/inside-abs": filepath.Join(root, "lib", "real"), // absolute, stays inside
		"bin/escape":     filepath.Join(outside, "evil"),     // absolute, leaves
		"bin/dangling":   "nowhere",
		"bin/loop":       "loop",
		"bin/todir":      "../adir",
		"bin/togit":      "../.git/hooks/run", // inside, but in .git
		"gitdir":         ".GIT",              // a directory link into .git
	}
	writeFile(t, filepath.Join(root, ".git", "hooks", "run"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(root, ".GIT", "run"), "#!/bin/sh\n", 0o755)
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	// A relative link that climbs out of the tree.
	rel, err := filepath.Rel(filepath.Join(root, "bin"), filepath.Join(outside, "evil"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rel, filepath.Join(root, "bin/escape-rel")); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		binary string
		words  []string // nil: no problem expected
	}{
		{"bin/ok", nil},
		{"bin/inside", nil},
		{"bin/inside-abs", nil},
		{"bin/../bin/ok", nil},
		{"bin/missing", []string{"does not exist"}},
		{"bin/noexec", []string{"not executable"}},
		{"bin/escape", []string{"outside"}},
		{"bin/escape-rel", []string{"outside"}},
		{"bin/dangling", []string{"does not exist"}},
		{"bin/loop", []string{"bin/loop"}},
		{"adir", []string{"not a regular file"}},
		{"bin/todir", []string{"not a regular file"}},
		{".", []string{"not a regular file"}},
		{"bin/togit", []string{"bin/togit", ".git directory", ".git/hooks/run"}},
		{"gitdir/run", []string{"gitdir/run", ".git directory", ".GIT/run"}},
	}
	for _, tc := range cases {
		m := &Manifest{Commands: []Command{{Name: "c", Binary: tc.binary}}}
		ps := m.CheckBinaries(root)
		if tc.words == nil {
			if len(ps) != 0 {
				t.Errorf("%s: unexpected %v", tc.binary, ps)
			}
			continue
		}
		if len(ps) != 1 || ps[0].Severity != SeverityError || ps[0].Field != "commands[0] (c).binary" {
			t.Errorf("%s: got %v, want one error on commands[0] (c).binary", tc.binary, ps)
			continue
		}
		for _, w := range tc.words {
			if !strings.Contains(ps[0].Message, w) {
				t.Errorf("%s: message %q lacks %q", tc.binary, ps[0].Message, w)
			}
		}
	}

	// Lexically bad paths are Validate's to report, not CheckBinaries'.
	m := &Manifest{Commands: []Command{{Name: "a", Binary: "../x"}, {Name: "b", Binary: "/bin/sh"}, {Name: "c", Binary: ""}}}
	if ps := m.CheckBinaries(root); len(ps) != 0 {
		t.Errorf("lexically bad paths reported twice: %v", ps)
	}

	// A plugin root that is itself a symlink (a live-linked local plugin)
	// is resolved first: its binaries are inside it.
	linkRoot := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(root, linkRoot); err != nil {
		t.Fatal(err)
	}
	m = &Manifest{Commands: []Command{{Name: "ok", Binary: "bin/ok"}, {Name: "in", Binary: "bin/inside-abs"}, {Name: "out", Binary: "bin/escape"}}}
	ps := m.CheckBinaries(linkRoot)
	if len(ps) != 1 || !strings.Contains(ps[0].Field, "(out)") {
		t.Errorf("through a linked root: %v, want only (out) refused", ps)
	}

	// A missing root is one error, not a panic.
	if ps := m.CheckBinaries(filepath.Join(root, "nope")); len(ps) != 1 || ps[0].Severity != SeverityError {
		t.Errorf("missing root: %v", ps)
	}
}

// Every spelling that a filesystem or git takes for .git is one; names
// that merely start like it are not.
func TestInGitDir(t *testing.T) {
	t.Parallel()
	in := []string{
		".git", ".git/run", "sub/.git/run", ".GIT/run", ".Git/run", `a\.git\run`, ".git./run", ".git . /run",
		"git~1/run", "GIT~1/run", ".g\u200cit/run", "\ufeff.git/run", ".gi\u206at/x",
	}
	out := []string{
		"bin/run", ".github/run", ".gitignore", "git/run", "bin/.gitkeep", ".git-hooks/run", "x.git/run", "git~2/run", "..git/run", "",
	}
	for _, p := range in {
		if !InGitDir(p) {
			t.Errorf("InGitDir(%q) = false, want true", p)
		}
		if CheckBinaryPath(p) == "" {
			t.Errorf("CheckBinaryPath(%q) accepted a path in .git", p)
		}
	}
	for _, p := range out {
		if InGitDir(p) {
			t.Errorf("InGitDir(%q) = true, want false", p)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, FileName), validBase, 0o644)
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Plugin.Name != "fledge-plugin-ok" || len(m.Commands) != 1 {
		t.Errorf("loaded %+v", m)
	}

	if _, err := Load(t.TempDir()); !errors.Is(err, ErrNoManifest) {
		t.Errorf("no manifest: %v, want ErrNoManifest", err)
	}
}

func TestLoadRefusesSymlinkedManifest(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	real := filepath.Join(t.TempDir(), "elsewhere.toml")
	writeFile(t, real, validBase, 0o644)
	for name, target := range map[string]string{"absolute": real, "relative-inside": "real.toml"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "real.toml"), validBase, 0o644)
			if err := os.Symlink(target, filepath.Join(dir, FileName)); err != nil {
				t.Fatal(err)
			}
			m, err := Load(dir)
			if err == nil {
				t.Fatalf("Load followed a symlinked plugin.toml: %+v", m.Plugin)
			}
			if !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("error %q should say why", err)
			}
		})
	}
}

func TestLoadRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory plugin.toml: %v", err)
	}
}

func TestOversizedRefused(t *testing.T) {
	dir := t.TempDir()
	// Valid TOML all the way, so only the size can be the reason.
	big := validBase + "# " + strings.Repeat("x", MaxSize) + "\n"
	writeFile(t, filepath.Join(dir, FileName), big, 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Load of %d bytes: %v, want size refusal", len(big), err)
	}
	if _, err := Parse([]byte(big)); err == nil {
		t.Errorf("Parse of %d bytes succeeded", len(big))
	}
	// Exactly MaxSize is still fine.
	exact := validBase + "#" + strings.Repeat("x", MaxSize-len(validBase)-2) + "\n"
	if len(exact) != MaxSize {
		t.Fatalf("test setup: %d bytes", len(exact))
	}
	writeFile(t, filepath.Join(dir, FileName), exact, 0o644)
	if _, err := Load(dir); err != nil {
		t.Errorf("Load of exactly MaxSize: %v", err)
	}
}
