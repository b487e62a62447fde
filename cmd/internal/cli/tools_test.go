package cli_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// TestToolsCollisions: plugins tools names a command two plugins record by
// each plugin, says so on stderr (also under --json, which lists the
// collision), and shows each tool's arguments in argv order.
func TestToolsCollisions(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	fh := filepath.Join(work, "fh")
	store := lockfile.NewStore(filepath.Join(fh, "plugins.toml"), filepath.Join(fh, ".plugins.toml.lock"))
	err := store.Update(func(f *lockfile.File) error {
		f.Put(lockfile.Plugin{Name: "fledge-plugin-a", Source: "/a", Kind: lockfile.KindLocalCopy, Protocol: manifest.ProtocolV1,
			Commands: []string{"status", "deploy"},
			CommandDetails: []manifest.Command{{Name: "status"}, {Name: "deploy", Dangerous: true, Args: []manifest.Arg{
				{Name: "target", Type: "string", Required: true}, {Name: "count", Type: "integer"}}}}})
		f.Put(lockfile.Plugin{Name: "fledge-plugin-b", Source: "/b", Kind: lockfile.KindLocalCopy, Commands: []string{"status"}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"FLEDGE_HOME": fh, "HOME": work, "NO_COLOR": "1"}
	out, errOut, code := runCaptured(t, env, []string{"plugins", "tools"})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"a.status", "b.status", "deploy", "target count?:integer", "dangerous"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	note := "note: 2 plugins provide command status; their tools are a.status (fledge-plugin-a), b.status (fledge-plugin-b)"
	if !strings.Contains(errOut, note) {
		t.Errorf("stderr lacks the collision note:\n%s", errOut)
	}
	out, errOut, code = runCaptured(t, env, []string{"plugins", "tools", "--json"})
	var doc struct {
		Tools []struct {
			Name, Plugin, Command string
		}
		Collisions []struct {
			Command string
			Plugins []string
			Tools   []string
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if len(doc.Tools) != 3 || len(doc.Collisions) != 1 || strings.Join(doc.Collisions[0].Tools, ",") != "a.status,b.status" {
		t.Errorf("document %+v", doc)
	}
	if !strings.Contains(errOut, note) {
		t.Errorf("--json: stderr lacks the collision note:\n%s", errOut)
	}
}

// runCaptured runs cli.Main in process and returns stdout, stderr and the
// exit code.
func runCaptured(t *testing.T, env map[string]string, args []string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	s := &cli.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr,
		Getenv: func(k string) string { return env[k] }}
	code := cli.Main(args, s, "test")
	return stdout.String(), stderr.String(), code
}
