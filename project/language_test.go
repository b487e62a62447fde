package project

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLanguage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{nil, "generic"},
		{[]string{"Cargo.toml"}, "rust"},
		{[]string{"package.json"}, "node"},
		{[]string{"go.mod"}, "go"},
		{[]string{"pyproject.toml"}, "python"},
		{[]string{"setup.py"}, "python"},
		{[]string{"Gemfile"}, "ruby"},
		{[]string{"build.gradle"}, "java-gradle"},
		{[]string{"build.gradle.kts"}, "java-gradle"},
		{[]string{"pom.xml"}, "java-maven"},
		{[]string{"Package.swift"}, "swift"},
		// Rust's order decides between markers.
		{[]string{"package.json", "Cargo.toml"}, "rust"},
		{[]string{"go.mod", "package.json"}, "node"},
		{[]string{"Package.swift", "pom.xml"}, "java-maven"},
		// Markers fledge's runner knows but Rust does not.
		{[]string{"requirements.txt", "Makefile"}, "generic"},
	} {
		dir := t.TempDir()
		for _, f := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := Language(dir); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.files, got, tc.want)
		}
	}
}

func TestLanguageLooksOnlyHere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Language(sub); got != "generic" {
		t.Errorf("a subdirectory of a Go module is %q: Rust looks at the directory itself only", got)
	}
}
