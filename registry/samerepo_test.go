package registry

import "testing"

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
		{"file:///srv/git/o/r", "file:///srv/git/o/r.git", true},

		{"CorvidLabs/fledge-plugin-deploy", "file:///tmp/evil/fledge-plugin-deploy", false},
		{"CorvidLabs/fledge-plugin-deploy", "file:///tmp/CorvidLabs/fledge-plugin-deploy", false},
		{"CorvidLabs/fledge-plugin-deploy", "https://github.com/attacker/fledge-plugin-deploy", false},
		{"CorvidLabs/fledge-plugin-deploy", "https://evil.example/CorvidLabs/fledge-plugin-deploy", false},
		{"CorvidLabs/fledge-plugin-deploy", "https://github.com:8443/CorvidLabs/fledge-plugin-deploy", false},
		{"CorvidLabs/fledge-plugin-deploy", "https://github.com/CorvidLabs/fledge-plugin-deploy/extra", false},
		{"https://git.example.com/a/B", "https://git.example.com/a/b", false}, // only GitHub folds case
		{"file:///srv/git/o/r", "file:///srv/git/o/R", false},
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
