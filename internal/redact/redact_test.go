package redact

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"https://user:ghp_x@github.com/o/r.git":  "https://github.com/o/r.git",
		"https://ghp_x@github.com/o/r.git":       "https://github.com/o/r.git",
		"https://user:p@ss@host/o/r":             "https://host/o/r",
		"http://h/o/r?private_token=abc#frag":    "http://h/o/r",
		"ssh://git:pw@host/o/r.git":              "ssh://git@host/o/r.git",
		"ssh://git@host/o/r.git":                 "ssh://git@host/o/r.git",
		"git@github.com:o/r.git":                 "git@github.com:o/r.git",
		"/local/path":                            "/local/path",
		"https://us%er:p%zz@h/x":                 "https://h/x",
		"https://github.com/CorvidLabs/fledge":   "https://github.com/CorvidLabs/fledge",
		"file:///tmp/repo":                       "file:///tmp/repo",
		"HTTPS://User:Pass@Example.com/Repo.git": "HTTPS://Example.com/Repo.git",
		"https://tok@[::1]:8080/x?y=1":           "https://[::1]:8080/x",
	}
	for in, want := range tests {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTextAndError(t *testing.T) {
	t.Parallel()
	msg := `clone "https://u:secret@host/o/r" failed; see ssh://git:pw@h/x`
	want := `clone "https://host/o/r" failed; see ssh://git@h/x`
	if got := Text(msg); got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	base := errors.New(msg)
	err := Error(base)
	if err.Error() != want || !errors.Is(err, base) {
		t.Errorf("Error = %q (wraps the original: %v)", err, errors.Is(err, base))
	}
	if Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
}

// FuzzURL: a password put into an http(s) URL's user info never comes
// out, whatever surrounds it.
func FuzzURL(f *testing.F) {
	for _, s := range []string{"github.com/o/r.git", "h/x?private_token=abc#frag", "us%er@h", "[::1]:8080/x", "host:22/o/r"} {
		f.Add("https", "user", s)
	}
	f.Add("ssh", "git", "host/o/r.git")
	f.Add("HTTP", "", "Example.com/Repo.git")
	// The real index's repository URLs (registry/testdata), with and
	// without a token as the user, as a private mirror's would carry.
	data, err := os.ReadFile("../../registry/testdata/registry-plugins.json")
	if err != nil {
		f.Fatal(err)
	}
	var index []struct{ Repo string }
	if err := json.Unmarshal(data, &index); err != nil {
		f.Fatal(err)
	}
	for _, e := range index {
		scheme, rest, ok := strings.Cut(e.Repo, "://")
		if !ok {
			continue
		}
		f.Add(scheme, "", rest)
		f.Add(scheme, "ghp_token", rest+".git")
	}
	f.Fuzz(func(t *testing.T, scheme, user, rest string) {
		const secret = "S3CRETpw"
		raw := scheme + "://" + user + ":" + secret + "@" + rest
		got := URL(raw)
		s := strings.ToLower(scheme)
		if (s == "http" || s == "https") && !strings.ContainsAny(user+rest, "@/?#%"+secret[:1]) && strings.Contains(got, secret) {
			t.Fatalf("%q kept the password: %q", raw, got)
		}
	})
}
