//go:build !fledge_nomcp

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPConnect: connect writes the host's user file, keeping the rest,
// and says so; again it changes nothing; --dry-run shows the change and
// writes nothing; disconnect gives the file back; an unknown host or a
// project scope the host lacks is a usage error.
func TestMCPConnect(t *testing.T) {
	f := newRunFixture(t)
	home := t.TempDir()
	f.env["HOME"] = home
	f.env["XDG_CONFIG_HOME"] = ""
	file := filepath.Join(home, ".gemini", "settings.json")
	orig := "{\n  \"theme\": \"GitHub\"\n}\n"
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	code, out, errOut := f.fledge("mcp", "connect", "gemini", "--command", "/opt/bin/fledge", "--dry-run")
	if code != 0 || !strings.Contains(out, `+  "mcpServers": {`) || !strings.Contains(out, `/opt/bin/fledge`) || read() != orig {
		t.Fatalf("--dry-run: %d\n%s\n%s\n%s", code, out, errOut, read())
	}
	code, _, errOut = f.fledge("mcp", "connect", "gemini", "--command", "/opt/bin/fledge")
	got := read()
	if code != 0 || !strings.Contains(errOut, "Gemini CLI now runs fledge mcp") || !strings.HasPrefix(got, "{\n  \"theme\": \"GitHub\",\n  \"mcpServers\": {") ||
		!strings.Contains(got, `"command": "/opt/bin/fledge"`) {
		t.Fatalf("connect: %d %s\n%s", code, errOut, got)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode after connect: %v %v", st.Mode(), err)
	}
	code, _, errOut = f.fledge("mcp", "connect", "gemini", "--command", "/opt/bin/fledge")
	if code != 0 || !strings.Contains(errOut, "nothing to change") || read() != got {
		t.Errorf("connect again: %d %s", code, errOut)
	}
	code, _, errOut = f.fledge("mcp", "disconnect", "gemini")
	if code != 0 || read() != orig {
		t.Errorf("disconnect: %d %s\n%s", code, errOut, read())
	}
	for _, args := range [][]string{{"mcp", "connect", "notepad"}, {"mcp", "connect", "codex", "--project"}, {"mcp", "connect"}} {
		if code, _, errOut := f.fledge(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errOut)
		}
	}
}
