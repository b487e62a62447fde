package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/manifest"
)

const cachedManifest = `[plugin]
name = "fledge-plugin-cache"
version = "1.2.3"
protocol = "fledge-v1"
description = "quoted \" and é"

[[commands]]
name = "c"
binary = "bin/c"
args = [{ name = "n", type = "integer", required = true }]

[hooks]
build = "make"

[capabilities]
exec = true
filesystem = "project"
environment = ["AWS_*", "TOKEN_X"]
`

// A run decodes plugin.toml through the derived file: what it gives back
// is exactly what manifest.Decode gives, built or read back; it is what
// is read (a marked copy comes back); another manifest's bytes are not
// answered from it; one that does not decode fails every time and leaves
// nothing behind.
func TestDecodedManifestFile(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache", "manifest-fledge-plugin-cache")
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		t.Fatal(err)
	}
	want, err := manifest.Decode([]byte(cachedManifest))
	if err != nil {
		t.Fatal(err)
	}
	for _, what := range []string{"built", "read back"} {
		got, err := decodeManifest(cache, []byte(cachedManifest))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %+v %v, want %+v", what, got, err, want)
		}
	}
	body, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	marked := bytes.Replace(body, []byte(`"1.2.3"`), []byte(`"7.2.3"`), 1)
	if bytes.Equal(marked, body) {
		t.Fatal("no version to mark in the decoded manifest")
	}
	os.WriteFile(cache, marked, 0o644)
	if got, _ := decodeManifest(cache, []byte(cachedManifest)); got == nil || got.Plugin.Version != "7.2.3" {
		t.Fatalf("the decoded file was not read: %+v", got)
	}

	other := strings.Replace(cachedManifest, "exec = true", "exec = false", 1)
	if got, err := decodeManifest(cache, []byte(other)); err != nil || got.Capabilities.Exec || got.Plugin.Version != "1.2.3" {
		t.Fatalf("another manifest answered from the file: %+v %v", got, err)
	}

	os.Remove(cache)
	bad := cachedManifest + "\n[capabilities]\nexec = true\n"
	for range 2 {
		if _, err := decodeManifest(cache, []byte(bad)); err == nil {
			t.Fatal("a manifest that does not decode was answered")
		}
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Fatalf("a failed decode left a derived file: %v", err)
	}
}

// Resolving a command tells a compiled program (its header, read once to
// check its platform) from a script, whose text wantedEnv reads for the
// variables it names.
func TestResolveKnowsACompiledProgram(t *testing.T) {
	e := newEnv(t)
	e.install(plugin{name: "fledge-plugin-go", commands: map[string]string{"goenv": "bin/goplugin"},
		copies: map[string]string{"bin/goplugin": goPlugin}})
	e.install(plugin{name: "fledge-plugin-sh", commands: map[string]string{"shenv": "bin/sh"},
		files: map[string]string{"bin/sh": "#!/bin/sh\necho \"$GITHUB_TOKEN\"\n"}})
	for command, want := range map[string]bool{"goenv": true, "shenv": false} {
		tg, err := Resolve(e.paths, command)
		if err != nil {
			t.Fatal(err)
		}
		if tg.compiled != want {
			t.Errorf("%s: compiled %v, want %v", command, tg.compiled, want)
		}
		if names := confine.NamedIn(tg.Binary, []string{"GITHUB_TOKEN"}); want != (len(names) == 0) {
			t.Errorf("%s: NamedIn found %v: it disagrees with the header", command, names)
		}
	}
}
