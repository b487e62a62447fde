package project

import (
	"os"
	"path/filepath"
)

// Generic is the language of a directory with none of the markers.
const Generic = "generic"

// markers are checked in order; the first file present names the
// language. The order is Rust's: a directory with both Cargo.toml and
// package.json is a Rust project.
var markers = []struct {
	files []string
	lang  string
}{
	{[]string{"Cargo.toml"}, "rust"},
	{[]string{"package.json"}, "node"},
	{[]string{"go.mod"}, "go"},
	{[]string{"pyproject.toml", "setup.py"}, "python"},
	{[]string{"Gemfile"}, "ruby"},
	{[]string{"build.gradle", "build.gradle.kts"}, "java-gradle"},
	{[]string{"pom.xml"}, "java-maven"},
	{[]string{"Package.swift"}, "swift"},
}

// Language returns the language label of dir: the first of Rust's markers
// present there (as a file, directory or symlink to either), else Generic.
func Language(dir string) string {
	if langs := Languages(dir); len(langs) > 0 {
		return langs[0]
	}
	return Generic
}

// Languages returns every language label whose marker dir holds, in Rust's
// order (so the first is Language's), or an empty list.
func Languages(dir string) []string {
	langs := []string{}
	for _, m := range markers {
		for _, f := range m.files {
			if Has(dir, f) {
				langs = append(langs, m.lang)
				break
			}
		}
	}
	return langs
}

// Has reports whether dir holds name (following a symlink, as Rust's
// Path::exists does).
func Has(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
