package scaffold

import (
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
