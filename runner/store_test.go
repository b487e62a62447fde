package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

func TestStoreThroughTheProtocol(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver(manifest.Capabilities{Store: true},
		`{"type":"store","key":"a","value":"1"}`,
		`{"type":"store","key":"b","value":2}`,
		`{"type":"store","key":"`+strings.Repeat("k", 257)+`","value":"x"}`,
		`{"type":"store","key":"c","value":"3"}`,
		`{"type":"store","key":"c","value":null}`,
		`?{"type":"load","id":"1","key":"a"}`,
		`?{"type":"load","id":"2","key":"b"}`,
		`?{"type":"load","id":"3","key":"c"}`,
	)
	e.mustRun(Request{Command: "drive"})
	want := `{"type":"response","id":"1","value":"1"}
{"type":"response","id":"2","value":null}
{"type":"response","id":"3","value":null}
`
	if got := e.rawResponses(dir); got != want {
		t.Errorf("responses:\n%s\nwant:\n%s", got, want)
	}
	w := e.ui.warnings()
	if !strings.Contains(w, "the value must be a string") || !strings.Contains(w, "key must be 1 to 256 bytes") {
		t.Errorf("warnings:\n%s", w)
	}
	// The store lives beside the plugin's tree, never inside it.
	if _, err := os.Stat(filepath.Join(dir, "state.json")); err == nil {
		t.Error("state.json written inside the plugin")
	}
	if _, err := os.Stat(e.paths.StoreFile("fledge-plugin-drive")); err != nil {
		t.Error(err)
	}
}

// A plugin the Rust fledge installed kept its data in state.json inside
// its tree: the first load takes it over, so a migrated plugin loads what
// it stored, and fledge's own writes never touch that file.
func TestStoreTakesOverRustState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver(manifest.Capabilities{Store: true},
		`?{"type":"load","id":"1","key":"last_user"}`,
		`{"type":"store","key":"last_user","value":"grace"}`,
		`?{"type":"load","id":"2","key":"last_user"}`,
	)
	rust := "{\n  \"last_user\": \"ada\"\n}"
	writeFile(t, filepath.Join(dir, "state.json"), rust, 0o644)
	e.mustRun(Request{Command: "drive"})
	want := `{"type":"response","id":"1","value":"ada"}
{"type":"response","id":"2","value":"grace"}
`
	if got := e.rawResponses(dir); got != want {
		t.Errorf("responses:\n%s\nwant:\n%s", got, want)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "state.json")); string(data) != rust {
		t.Errorf("state.json = %q, want it left as the Rust fledge wrote it", data)
	}
}
