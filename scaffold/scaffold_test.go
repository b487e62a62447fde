package scaffold

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

func TestCreateValidates(t *testing.T) {
	for _, lang := range []string{LangShell, LangGo, LangWasm} {
		t.Run(lang, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "fledge-plugin-greet")
			files, err := Create(Options{Name: "greet", Dir: dir, Lang: lang})
			if err != nil {
				t.Fatal(err)
			}
			if len(files) < 4 {
				t.Fatalf("wrote %v", files)
			}
			m, err := manifest.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if ps := m.Validate(); len(ps) > 0 {
				t.Fatalf("problems: %v", ps)
			}
			if m.Plugin.Name != "fledge-plugin-greet" || !m.IsProtocol() || m.Commands[0].Name != "greet" || m.IsWasm() != (lang == LangWasm) {
				t.Fatalf("manifest %+v", m.Plugin)
			}
		})
	}
}

func TestShellExampleSpeaksProtocol(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the shell example needs sh")
	}
	dir := t.TempDir()
	if _, err := Create(Options{Name: "greet", Dir: dir, Lang: LangShell}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(dir, "bin", "greet"))
	cmd.Stdin = strings.NewReader(`{"type":"init","protocol":"fledge-v1","command":"greet","args":["Ada"]}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"log","level":"info","message":"greeting Ada"}` + "\n" + `{"type":"output","text":"Hello, Ada!\n"}` + "\n"
	if string(out) != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

func TestCreateRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{
		{Name: "../x", Dir: filepath.Join(dir, "a")},
		{Name: "-x", Dir: filepath.Join(dir, "b")},
		{Name: "plugins", Dir: filepath.Join(dir, "c")},
		{Name: "ok", Dir: filepath.Join(dir, "d"), Lang: "rust"},
		{Name: "ok", Dir: dir}, // not empty once the others ran? t.TempDir is empty: make it non-empty
	} {
		if o.Dir == dir {
			if _, err := Create(Options{Name: "first", Dir: filepath.Join(dir, "e")}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Create(o); err == nil {
			t.Errorf("Create(%+v) succeeded", o)
		}
	}
}

func TestCreateDescription(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "p")
	desc := `Quotes "and" back\slashes, ünïcode`
	if _, err := Create(Options{Name: "d", Dir: dir, Description: desc}); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Plugin.Description != desc {
		t.Errorf("description = %q, want %q", m.Plugin.Description, desc)
	}
	if readme, _ := os.ReadFile(filepath.Join(dir, "README.md")); !strings.Contains(string(readme), desc) {
		t.Errorf("README lacks the description:\n%s", readme)
	}
	for _, bad := range []string{"two\nlines", "bell\a", "bidi\u202e", "c1\u009b", "not utf-8 \xff", "private\ue000"} {
		if _, err := Create(Options{Name: "d", Dir: filepath.Join(t.TempDir(), "x"), Description: bad}); !errors.Is(err, ErrInvalidDescription) {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

func TestCreateLanguages(t *testing.T) {
	t.Parallel()
	if _, err := Create(Options{Name: "w", Dir: filepath.Join(t.TempDir(), "w"), Lang: LangWasm}); err != nil {
		t.Errorf("wasm: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "r")
	if _, err := Create(Options{Name: "r", Dir: dir, Lang: "rust"}); !errors.Is(err, ErrUnknownLang) {
		t.Errorf("rust: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused language wrote %s", dir)
	}
}
