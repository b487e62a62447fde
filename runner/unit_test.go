package runner

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

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
		if got := StripCredentials(in); got != want {
			t.Errorf("StripCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVersionSort(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{{"v1.2.0", "v1.10.0"}, {"v1.9", "v1.10"}, {"1", "2"}, {"v1.0.0", "v1.0.0.1"}, {"a", "b"}, {"v01", "v2"}}
	for _, p := range pairs {
		if !versionLess(p[0], p[1]) || versionLess(p[1], p[0]) {
			t.Errorf("versionLess(%q, %q) wrong", p[0], p[1])
		}
	}
}

func TestLineReader(t *testing.T) {
	t.Parallel()
	in := "a\r\n\n" + strings.Repeat("x", 100) + "\nlast"
	l := newLineReader(strings.NewReader(in), 100)
	var got []string
	for {
		line, err := l.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	want := []string{"a", "", strings.Repeat("x", 100), "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %q", got)
	}
	l = newLineReader(strings.NewReader(strings.Repeat("y", 200<<10)+"\n"), 1000)
	if _, err := l.next(); !errors.Is(err, errLineTooLong) {
		t.Errorf("long line: %v", err)
	}
	l = newLineReader(strings.NewReader(strings.Repeat("y", 101)), 100)
	if _, err := l.next(); !errors.Is(err, errLineTooLong) {
		t.Errorf("long last line: %v", err)
	}
}

func TestValidators(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "f"), "", 0o644)
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"non_empty", " x ", true}, {"non_empty", "  ", false},
		{"integer", "-42", true}, {"integer", "4.2", false}, {"integer", "x", false},
		{"path_exists", "f", true}, {"path_exists", filepath.Join(dir, "f"), true}, {"path_exists", "nope", false},
		{"url", "https://example.com/x", true}, {"url", "http://h", true}, {"url", "ftp://h", false}, {"url", "example.com", false},
	}
	for _, tt := range tests {
		v, known := Validator(tt.name, dir)
		if !known || (v(tt.in) == nil) != tt.ok {
			t.Errorf("%s(%q): known %v, ok %v", tt.name, tt.in, known, v(tt.in) == nil)
		}
	}
	if v, known := Validator("zip_code", dir); known || v != nil {
		t.Error("unknown validator reported known")
	}
}
