package project

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

func TestDetect(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mono := filepath.Join(dir, "mono")
	svc := filepath.Join(mono, "svc")
	for _, f := range []string{
		filepath.Join(mono, "Cargo.toml"),
		filepath.Join(mono, ".git", "HEAD"),
		filepath.Join(svc, "package.json"),
		filepath.Join(svc, "pyproject.toml"),
		filepath.Join(svc, "Cargo.toml"),
	} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The directory itself, never the repository or manifest above it.
	got, err := Detect(svc)
	if err != nil {
		t.Fatal(err)
	}
	want := Info{Name: "svc", Root: svc, Language: "rust", Languages: []string{"rust", "node", "python"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Detect(svc) = %+v, want %+v", got, want)
	}
	// A directory with no marker: generic, and an empty (not nil) list.
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err = Detect(empty)
	if err != nil || got.Language != Generic || got.Languages == nil || len(got.Languages) != 0 {
		t.Errorf("Detect(empty) = %+v, %v", got, err)
	}
	// The root is reported with symlinks resolved, named after the real
	// directory, as Rust's current_dir() is.
	if runtime.GOOS != "windows" {
		link := filepath.Join(dir, "link")
		if err := os.Symlink(svc, link); err != nil {
			t.Fatal(err)
		}
		if got, err := Detect(link); err != nil || got.Root != svc || got.Name != "svc" {
			t.Errorf("Detect(link) = %+v, %v; want root %s", got, err, svc)
		}
	}
	root := filepath.VolumeName(dir) + string(filepath.Separator)
	if got, err := Detect(root); err != nil || got.Name != "unknown" || got.Root != root {
		t.Errorf("Detect(%s) = %+v, %v; want name unknown", root, got, err)
	}
	if _, err := Detect(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory was detected")
	}
}
