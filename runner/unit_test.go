package runner

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

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
