package repourl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every spelling in a group has the group's identity.
func TestParseSpellings(t *testing.T) {
	t.Parallel()
	for id, spellings := range map[string][]string{
		"github.com/evil/fledge-plugin-x": {
			"https://github.com/evil/fledge-plugin-x",
			"https://github.com/evil//fledge-plugin-x",
			"https://github.com//evil/fledge-plugin-x/",
			"https://github.com/evil/./fledge-plugin-x",
			"https://github.com/evil/x/../fledge-plugin-x",
			"https://github.com/EVIL/Fledge-Plugin-X",
			"HTTPS://GITHUB.COM/evil/fledge-plugin-x.git",
			"https://github.com./evil/fledge-plugin-x.git/",
			"https://github.com:443/evil/fledge-plugin-x",
			"https://github.com:0443/evil/fledge-plugin-x",
			"https://github.com:/evil/fledge-plugin-x",
			"https://token@github.com/evil/fledge-plugin-x",
			"https://user:pass@github.com/evil/fledge-plugin-x",
			"https://github.com/%65vil/fledge%2Dplugin%2dx",
			"http://github.com/evil/fledge-plugin-x",
			"ssh://git@github.com/evil/fledge-plugin-x.git",
			"ssh://git@github.com:22/evil//fledge-plugin-x",
			"ssh://github.com/evil/./fledge-plugin-x",
			"git@github.com:evil/fledge-plugin-x.git",
			"git@github.com:/evil/fledge-plugin-x",
			"github.com:evil/fledge-plugin-x",
			"git://github.com/evil/fledge-plugin-x",
			"git://github.com:9418/evil/fledge-plugin-x",
		},
		"127.0.0.1:8080/evil/fledge-plugin-x": {
			"http://127.0.0.1:8080/evil/fledge-plugin-x",
			"HTTP://127.0.0.1:08080/evil//fledge-plugin-x/",
			"http://[::ffff:127.0.0.1]:8080/evil/fledge-plugin-x",
			"https://127.0.0.1:8080/evil/fledge-plugin-x.git",
		},
		"git.example.com/Group/Repo": {
			"https://git.example.com/Group/Repo",
			"https://Git.Example.COM/Group/Repo.git",
			"ssh://git.example.com/Group/./Repo",
		},
		"[::1]:2222/o/r": {
			"ssh://git@[::1]:2222/o/r",
			"ssh://[0:0:0:0:0:0:0:1]:2222/o/r.git",
		},
		"git.example.com/~alice/r": {
			"ssh://git.example.com/~alice/r",
			"git.example.com:~alice/r",
		},
	} {
		for _, s := range spellings {
			r, err := Parse(s)
			if err != nil {
				t.Errorf("Parse(%q): %v", s, err)
				continue
			}
			if r.ID() != id {
				t.Errorf("Parse(%q).ID() = %q, want %q", s, r.ID(), id)
			}
		}
	}
}

// Only github.com folds the case of the path; ports other than the
// default are kept.
func TestParseDistinct(t *testing.T) {
	t.Parallel()
	for _, pair := range [][2]string{
		{"https://git.example.com/o/r", "https://git.example.com/O/r"},
		{"https://git.example.com/o/r", "https://git.example.com:8443/o/r"},
		{"https://github.com/o/r", "https://www.github.com/o/r"},
		{"https://github.com/o/r", "https://github.com/o/r/x"},
		{"https://github.com/o/r", "https://github.com/o/r.git.git"},
		{"http://localhost/o/r", "http://127.0.0.1/o/r"},
	} {
		if Same(pair[0], pair[1]) {
			t.Errorf("Same(%q, %q) = true", pair[0], pair[1])
		}
	}
}

// What is refused, and the error says why.
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for raw, why := range map[string]string{
		"":                                  "empty",
		"https://github.com/evil%2Fx":       "'/'",
		"https://github.com/evil%2fx":       "'/'",
		"https://github.com/evil%5Cx":       "backslash",
		"https://github.com/evil/%2E%2E/x":  "'.'",
		"https://github.com/evil/x%25":      "'%'",
		"https://github.com/evil/%zz":       "hex",
		"https://github.com/evil/x%20y":     "' '",
		"https://github.com/evil/x%C3%A9":   "non-ASCII",
		"https://github.com/evil\\x":        "backslash",
		"https://github.com/evil/x y":       "space",
		"https://github.com/evil/x?y":       "query",
		"https://github.com/evil/x#y":       "fragment",
		"https://github.com/../x":           "above the root",
		"ssh://git@github.com/o/../evil/x":  "file system",
		"git@github.com:o/../evil/x":        "file system",
		"git://github.com/o/../evil/x":      "file system",
		"https://github.com/":               "no repository",
		"https://github.com/.git":           "no repository",
		"https://":                          "no host",
		"https://a@b@github.com/o/r":        "more than one '@'",
		"ssh://-oProxyCommand=x/o/r":        "option",
		"https://gith\u00fcb.com/o/r":       "xn--",
		"https://127.1/o/r":                 "canonical IPv4",
		"https://2130706433/o/r":            "canonical IPv4",
		"https://0x7f.0.0.1/o/r":            "canonical IPv4",
		"https://0177.0.0.1/o/r":            "canonical IPv4",
		"https://127.0.0.01/o/r":            "canonical IPv4",
		"https://[fe80::1%25eth0]/o/r":      "zone",
		"https://[github.com]/o/r":          "not an IPv6",
		"https://github.com:99999/o/r":      "port",
		"https://github.com:+443/o/r":       "port",
		"ftp://github.com/o/r":              "ftp://",
		"git+ssh://github.com/o/r":          "git+ssh://",
		"ext::sh -c x":                      "space",
		"ext::sh":                           "transport helper",
		"file://host/srv/r":                 "local path",
		"file:///srv/r%2e":                  "'%'",
		"file:///":                          "root",
		"owner/repo":                        "not a git URL",
		"git@[::1]:o/r":                     "IPv6",
		"https://github.com/o/r\x1b[2J":     "control",
		"https://git.example.com..evil/o/r": "empty label",
	} {
		_, err := Parse(raw)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want an error saying %q", raw, why)
			continue
		}
		if !strings.Contains(err.Error(), why) {
			t.Errorf("Parse(%q) = %v, want it to say %q", raw, err, why)
		}
	}
}

// Name is the repository's name as written.
func TestParseName(t *testing.T) {
	t.Parallel()
	for raw, name := range map[string]string{
		"https://github.com/Owner/My-Plugin.git/": "My-Plugin",
		"http://127.0.0.1:1/evil/x/../y":          "y",
		"git@host:o/r":                            "r",
		"file:///srv/git/o/Plug.git":              "Plug",
	} {
		r, err := Parse(raw)
		if err != nil || r.Name != name {
			t.Errorf("Parse(%q).Name = %q (%v), want %q", raw, r.Name, err, name)
		}
	}
}

// A file:// URL is its real path: through symlinks, doubled slashes and
// dot segments, and the path with ".git" that git opens.
func TestParseFileRealPath(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	for _, d := range []string{"evil/x", "evil/bare.git", "other"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(work, "evil"), filepath.Join(work, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(work, "other"), filepath.Join(work, "evil", "hop")); err != nil {
		t.Fatal(err)
	}
	realWork, err := filepath.EvalSymlinks(work)
	if err != nil {
		t.Fatal(err)
	}
	w := filepath.ToSlash(work)
	rw := filepath.ToSlash(realWork)
	for raw, want := range map[string]string{
		"file://" + w + "/evil/x":                   rw + "/evil/x",
		"file://" + w + "/alias/x":                  rw + "/evil/x",
		"file://" + w + "//alias//x/":               rw + "/evil/x",
		"file://" + w + "/./alias/../evil/x":        rw + "/evil/x",
		"file://localhost" + w + "/alias/x":         rw + "/evil/x",
		"file://" + w + "/alias/x.git":              rw + "/evil/x.git",    // neither exists: resolved ancestor
		"file://" + w + "/alias/bare":               rw + "/evil/bare.git", // as git opens it
		"file://" + w + "/evil/hop/../x":            rw + "/x",             // hop/.. is other's parent
		"file://" + w + "/alias/missing/../x":       rw + "/evil/x",
		"file://" + w + "/alias/missing/deeper/zzz": rw + "/evil/missing/deeper/zzz",
	} {
		r, err := Parse(raw)
		if err != nil {
			t.Errorf("Parse(%q): %v", raw, err)
			continue
		}
		if r.Path != want || r.ID() != "file://"+want {
			t.Errorf("Parse(%q) = %q, want %q", raw, r.Path, want)
		}
	}
}

// Patterns read host/path spellings and globs; a port written in a
// pattern without a scheme is kept.
func TestParsePattern(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"github.com/evil/*":              "github.com/evil/*",
		"GitHub.com//Evil/*/":            "github.com/evil/*",
		"127.0.0.1:8080/evil/*":          "127.0.0.1:8080/evil/*",
		"git.example.com:443/o/*":        "git.example.com:443/o/*",
		"https://git.example.com:443/**": "git.example.com/**",
		"git@github.com:o/*":             "github.com/o/*",
		"github.com:o/*":                 "github.com/o/*",
		"*/bad-owner/**":                 "*/bad-owner/**",
		"*.example.com/o/fledge-?":       "*.example.com/o/fledge-?",
		"**":                             "**/",
	} {
		r, err := ParsePattern(raw)
		if err != nil {
			t.Errorf("ParsePattern(%q): %v", raw, err)
			continue
		}
		if r.ID() != want {
			t.Errorf("ParsePattern(%q) = %q, want %q", raw, r.ID(), want)
		}
	}
	for _, raw := range []string{"github.com/o/../evil/*", "github.com/o%2F*", "user@github.com/o/*"} {
		if r, err := ParsePattern(raw); err == nil {
			t.Errorf("ParsePattern(%q) = %q, want an error", raw, r.ID())
		}
	}
}

// GitHubOwner answers only for the plain spellings.
func TestGitHubOwner(t *testing.T) {
	t.Parallel()
	for raw, owner := range map[string]string{
		"https://github.com/CorvidLabs/fledge-plugin-x":      "CorvidLabs",
		"https://GitHub.com/CorvidLabs/fledge-plugin-x.git/": "CorvidLabs",
		"https://github.com:443/CorvidLabs/x":                "CorvidLabs",
		"ssh://git@github.com/CorvidLabs/x.git":              "CorvidLabs",
		"ssh://git@github.com:22/CorvidLabs/x":               "CorvidLabs",
		"git@github.com:CorvidLabs/x.git":                    "CorvidLabs",
		"git@github.com:/CorvidLabs/x":                       "CorvidLabs",
		"https://github.com/CorvidLabs//x":                   "",
		"https://github.com/evil/../CorvidLabs/x":            "",
		"https://github.com/CorvidLabs/./x":                  "",
		"https://github.com/%43orvidLabs/x":                  "",
		"https://github.com./CorvidLabs/x":                   "",
		"https://token@github.com/CorvidLabs/x":              "",
		"ssh://alice@github.com/CorvidLabs/x":                "",
		"ssh://git:pw@github.com/CorvidLabs/x":               "",
		"ssh://github.com/CorvidLabs/x":                      "",
		"alice@github.com:CorvidLabs/x":                      "",
		"http://github.com/CorvidLabs/x":                     "",
		"git://github.com/CorvidLabs/x":                      "",
		"https://github.com:8443/CorvidLabs/x":               "",
		"https://github.com/CorvidLabs/x/y":                  "",
		"https://github.com/CorvidLabs":                      "",
		"https://github.com/CorvidLabs/x?y":                  "",
		"https://evil.example/CorvidLabs/x":                  "",
		"https://github.com/-x/y":                            "",
		"file:///github.com/CorvidLabs/x":                    "",
	} {
		got, ok := GitHubOwner(raw)
		if got != owner || ok != (owner != "") {
			t.Errorf("GitHubOwner(%q) = %q, %v; want %q", raw, got, ok, owner)
		}
	}
}
