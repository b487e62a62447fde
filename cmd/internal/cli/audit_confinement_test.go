//go:build unix

package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/confine"
)

// audit and info say per native plugin how the kernel confines it here: its
// profile's row and whether Landlock enforces it, or why not.
func TestAuditAndInfoSayWhatTheKernelEnforces(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.confined = true
	e.local("plain", hPlugin("fledge-plugin-plain", "1.0.0", ""))
	e.local("scoped", hPlugin("fledge-plugin-scoped", "1.0.0", "\n[capabilities]\nfilesystem = \"project\"\nnetwork = true\n"))
	e.ok("plugins", "install", "./plain", "--copy", "--yes", "--json")
	e.ok("plugins", "install", "./scoped", "--copy", "--grant", "filesystem", "--json")
	type confinement struct {
		Scope          string `json:"scope"`
		Network        bool   `json:"network"`
		KernelEnforced bool   `json:"kernel_enforced"`
		Reason         string `json:"reason"`
	}
	var doc struct {
		Audit []struct {
			Name        string       `json:"name"`
			Confinement *confinement `json:"confinement"`
		} `json:"audit"`
	}
	r := e.ok("plugins", "audit", "--json")
	if err := json.Unmarshal(r.out, &doc); err != nil {
		t.Fatal(err)
	}
	s := confine.Detect()
	want := map[string]confinement{
		"fledge-plugin-plain":  {Scope: "undeclared", Network: true, KernelEnforced: s.Files},
		"fledge-plugin-scoped": {Scope: "project", Network: false, KernelEnforced: s.Files && s.Network},
	}
	for _, a := range doc.Audit {
		c, w := a.Confinement, want[a.Name]
		if c == nil || c.Scope != w.Scope || c.Network != w.Network || c.KernelEnforced != w.KernelEnforced || (c.Reason == "") != c.KernelEnforced {
			t.Errorf("%s: confinement %+v, want %+v (kernel: %+v)", a.Name, c, w, s)
		}
	}
	text := e.ok("plugins", "audit")
	if s.Files && !strings.Contains(string(text.out), "confined by the kernel: its own code reaches the project read-only, its own files, no network") {
		t.Errorf("audit text:\n%s", text.out)
	}
	info := e.ok("plugins", "info", "scoped")
	if s.Files && !strings.Contains(string(info.out), "confined by the kernel: its own code reaches the project read-only") {
		t.Errorf("info text:\n%s", info.out)
	}
	e.confined = false
	off := e.ok("plugins", "audit")
	if !strings.Contains(string(off.out), "not confined (turned off by FLEDGE_CONFINE=off)") {
		t.Errorf("audit text with FLEDGE_CONFINE=off:\n%s", off.out)
	}
}

// tools --json shows each native tool's confinement: the object audit
// shows for its plugin, with confinement on and off.
func TestToolsShowTheConfinementAuditShows(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("scoped", hPlugin("fledge-plugin-scoped", "1.0.0", "\n[capabilities]\nfilesystem = \"project\"\n"))
	e.ok("plugins", "install", "./scoped", "--copy", "--grant", "filesystem", "--json")
	for _, on := range []bool{true, false} {
		e.confined = on
		audit := hJSON(t, e.ok("plugins", "audit", "--json"))
		tools := hJSON(t, e.ok("plugins", "tools", "--json"))
		want, got := hGet(audit, "audit", 0, "confinement"), hGet(tools, "tools", 0, "confinement")
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if want == nil || string(a) != string(b) {
			t.Errorf("confined=%v: tools --json confinement %s, audit %s", on, b, a)
		}
	}
}
