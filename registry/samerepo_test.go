package registry

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSameRepository(t *testing.T) {
	t.Parallel()
	const base = "https://github.com"
	cases := []struct {
		a, b string
		want bool
	}{
		{"CorvidLabs/fledge-plugin-deploy", "https://github.com/CorvidLabs/fledge-plugin-deploy", true},
		{"CorvidLabs/fledge-plugin-deploy", "https://github.com/CorvidLabs/fledge-plugin-deploy.git", true},
		{"CorvidLabs/fledge-plugin-deploy", "https://GitHub.COM/corvidlabs/fledge-plugin-deploy/", true},
		{"CorvidLabs/fledge-plugin-deploy", "https://token@github.com/CorvidLabs/fledge-plugin-deploy", true},
		{"CorvidLabs/fledge-plugin-deploy", "https://github.com:443/CorvidLabs/fledge-plugin-deploy", true},
		{"CorvidLabs/fledge-plugin-deploy", "ssh://git@github.com/CorvidLabs/fledge-plugin-deploy.git", true},
		{"CorvidLabs/fledge-plugin-deploy", "git@github.com:CorvidLabs/fledge-plugin-deploy.git", true},
		{"https://git.example.com/a/b", "https://GIT.example.com/a/b.git/", true},
		{"https://github.com/evil//fledge-plugin-x", "https://github.com/evil/fledge-plugin-x", true},
		{"http://127.0.0.1:8080/evil/./x/../fledge-plugin-x", "HTTP://127.0.0.1:08080/evil/fledge-plugin-x.git/", true},
		{"https://git.example.com/%65vil/x", "https://git.example.com/evil/x", true},

		{"CorvidLabs/fledge-plugin-deploy", "file:///tmp/evil/fledge-plugin-deploy", false},
		{"CorvidLabs/fledge-plugin-deploy", "file:///tmp/CorvidLabs/fledge-plugin-deploy", false},
		{"CorvidLabs/fledge-plugin-deploy", "https://github.com/attacker/fledge-plugin-deploy", false},
		{"CorvidLabs/fledge-plugin-deploy", "https://evil.example/CorvidLabs/fledge-plugin-deploy", false},
		{"CorvidLabs/fledge-plugin-deploy", "https://github.com:8443/CorvidLabs/fledge-plugin-deploy", false},
		{"CorvidLabs/fledge-plugin-deploy", "https://github.com/CorvidLabs/fledge-plugin-deploy/extra", false},
		{"https://git.example.com/a/B", "https://git.example.com/a/b", false}, // only GitHub folds case
		{"file:///srv/git/o/r", "file:///srv/git/o/R", false},
		{"file:///srv/git/o/r", "file:///srv/git/o/r.git", false}, // neither exists: two paths
		{"http://127.0.0.1:8080/evil/x", "http://127.0.0.1:8081/evil/x", false},
		{"https://github.com/evil/x", "https://github.com./evil/x/y/..", true},
	}
	for _, c := range cases {
		a, err := ParseSource(c.a, base)
		if err != nil {
			t.Fatalf("%s: %v", c.a, err)
		}
		b, err := ParseSource(c.b, base)
		if err != nil {
			t.Fatalf("%s: %v", c.b, err)
		}
		if got := SameRepository(a, b); got != c.want {
			t.Errorf("SameRepository(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := SameRepository(b, a); got != c.want {
			t.Errorf("SameRepository(%q, %q) = %v, want %v (not symmetric)", c.b, c.a, got, c.want)
		}
	}
	local, _ := ParseSource("/abs/dir", base)
	name, _ := ParseSource("deploy", base)
	if SameRepository(local, local) || SameRepository(name, name) {
		t.Error("a local path or registry name compared as a repository")
	}
}

// A file:// repository is its real path: a symlinked or doubled-slash
// spelling is the same repository, and a path without ".git" is the
// ".git" directory git would open.
func TestSameRepositoryFile(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	evil := filepath.Join(work, "evil")
	if err := os.MkdirAll(filepath.Join(evil, "fledge-plugin-ev"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(evil, "bare.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(evil, filepath.Join(work, "alias")); err != nil {
		t.Fatal(err)
	}
	real := "file://" + filepath.ToSlash(filepath.Join(evil, "fledge-plugin-ev"))
	for _, other := range []string{
		"file://" + filepath.ToSlash(filepath.Join(work, "alias", "fledge-plugin-ev")),
		"file://" + filepath.ToSlash(work) + "//evil/./fledge-plugin-ev/",
		"file://" + filepath.ToSlash(work) + "/alias/../evil/fledge-plugin-ev",
	} {
		a, err := ParseSource(real, "")
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseSource(other, "")
		if err != nil {
			t.Fatal(err)
		}
		if !SameRepository(a, b) {
			t.Errorf("SameRepository(%q, %q) = false, want true", real, other)
		}
	}
	a, _ := ParseSource("file://"+filepath.ToSlash(filepath.Join(evil, "bare")), "")
	b, _ := ParseSource("file://"+filepath.ToSlash(filepath.Join(evil, "bare.git")), "")
	if !SameRepository(a, b) {
		t.Errorf("file:// without .git is not the .git directory git opens")
	}
}
