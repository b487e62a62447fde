package gitstate

import "testing"

func TestStripCredentials(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"https://user:ghp_x@github.com/o/r.git":  "https://github.com/o/r.git",
		"https://ghp_x@github.com/o/r.git":       "https://github.com/o/r.git",
		"http://h/o/r?private_token=abc#frag":    "http://h/o/r",
		"ssh://git:pw@host/o/r.git":              "ssh://git@host/o/r.git",
		"ssh://git@host/o/r.git":                 "ssh://git@host/o/r.git",
		"git@github.com:o/r.git":                 "git@github.com:o/r.git",
		"/local/path":                            "/local/path",
		"https://us%er:p%zz@h/x":                 "https://h/x",
		"https://github.com/CorvidLabs/fledge":   "https://github.com/CorvidLabs/fledge",
		"file:///tmp/repo":                       "file:///tmp/repo",
		"HTTPS://User:Pass@Example.com/Repo.git": "https://Example.com/Repo.git",
	}
	for in, want := range tests {
		if got := stripCredentials(in); got != want {
			t.Errorf("stripCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}
