package agenthosts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
)

var fledge = Server{Name: "fledge", Command: "/opt/fledge/bin/fledge", Args: []string{"mcp"}}

// subsequence reports whether every byte of a is in b, in order: an edit
// that only added text kept every other byte.
func subsequence(a, b []byte) bool {
	i := 0
	for _, c := range b {
		if i < len(a) && a[i] == c {
			i++
		}
	}
	return i == len(a)
}

// entryOf decodes a host file and returns its servers' entry name.
func entryOf(t *testing.T, h *Host, data []byte, name string) map[string]any {
	t.Helper()
	doc := map[string]any{}
	if h.format == "toml" {
		if err := toml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v\n%s", h.ID, err, data)
		}
	} else {
		std, err := hujson.Standardize(bytes.Clone(data))
		if err != nil {
			t.Fatalf("%s: %v\n%s", h.ID, err, data)
		}
		if err := json.Unmarshal(std, &doc); err != nil {
			t.Fatalf("%s: %v\n%s", h.ID, err, data)
		}
	}
	servers, _ := doc[h.key].(map[string]any)
	e, _ := servers[name].(map[string]any)
	return e
}

// TestConnectFixtures: each host's real-format file gets fledge's entry,
// in the host's own shape, keeping every other byte; connecting again
// changes nothing; a changed command replaces the entry; disconnecting
// gives back the file as it was.
func TestConnectFixtures(t *testing.T) {
	for _, id := range Hosts() {
		t.Run(id, func(t *testing.T) {
			h, err := Lookup(id)
			if err != nil {
				t.Fatal(err)
			}
			ext := ".json"
			if h.format == "toml" {
				ext = ".toml"
			}
			orig, err := os.ReadFile(filepath.Join("testdata", id+ext))
			if err != nil {
				t.Fatal(err)
			}
			out, changed, err := h.Connect(orig, fledge)
			if err != nil || !changed {
				t.Fatalf("connect: %v %v", changed, err)
			}
			t.Logf("connected:\n%s", out)
			if !subsequence(orig, out) {
				t.Errorf("connect changed other bytes:\n%s", out)
			}
			e := entryOf(t, h, out, "fledge")
			if e["command"] != fledge.Command || !equalJSON(e["args"], []string{"mcp"}) || !equalJSON(e, h.entry(fledge)) {
				t.Errorf("entry %v", e)
			}
			again, changed, err := h.Connect(out, fledge)
			if err != nil || changed || !bytes.Equal(again, out) {
				t.Errorf("connecting again: %v %v", changed, err)
			}
			moved := fledge
			moved.Command = "/usr/local/bin/fledge"
			updated, changed, err := h.Connect(out, moved)
			if err != nil || !changed || entryOf(t, h, updated, "fledge")["command"] != moved.Command {
				t.Fatalf("update: %v %v\n%s", changed, err, updated)
			}
			back, changed, err := h.Disconnect(updated, "fledge")
			if err != nil || !changed {
				t.Fatalf("disconnect: %v %v", changed, err)
			}
			if !bytes.Equal(back, orig) {
				t.Errorf("disconnect did not give the file back:\n%s\nwant:\n%s", back, orig)
			}
			if same, changed, err := h.Disconnect(back, "fledge"); err != nil || changed || !bytes.Equal(same, back) {
				t.Errorf("disconnecting again: %v %v", changed, err)
			}
		})
	}
}

// TestConnectNewFile: a host without a file gets one holding only the
// entry; an empty object gets the key.
func TestConnectNewFile(t *testing.T) {
	for _, id := range Hosts() {
		h, _ := Lookup(id)
		for _, in := range []string{"", "{}\n", "{\n}\n"} {
			if h.format == "toml" && strings.Contains(in, "{") {
				continue
			}
			out, changed, err := h.Connect([]byte(in), fledge)
			if err != nil || !changed || entryOf(t, h, out, "fledge")["command"] != fledge.Command {
				t.Errorf("%s from %q: %v %v\n%s", id, in, changed, err, out)
			}
		}
	}
}

// TestRefusals: what cannot be edited safely is refused, naming the fix.
func TestRefusals(t *testing.T) {
	h, _ := Lookup("claude-code")
	for _, in := range []string{"{", "[]", `{"mcpServers": []}`} {
		if _, _, err := h.Connect([]byte(in), fledge); err == nil {
			t.Errorf("%q was edited", in)
		}
	}
	c, _ := Lookup("codex")
	inline := "mcp_servers = { fledge = { command = \"x\", args = [] } }\n"
	if _, _, err := c.Connect([]byte(inline), fledge); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("an inline table: %v", err)
	}
	if _, err := Lookup("notepad"); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("an unknown host: %v", err)
	}
	if _, err := c.File(Env{Home: "/h"}, true, "/p"); err == nil {
		t.Error("codex has no project scope")
	}
}
