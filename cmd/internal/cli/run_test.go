package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

type runFixture struct {
	t     *testing.T
	paths home.Paths
	env   map[string]string
}

func newRunFixture(t *testing.T) *runFixture {
	t.Helper()
	dir := t.TempDir()
	paths, err := home.New(filepath.Join(dir, "fh"))
	if err != nil {
		t.Fatal(err)
	}
	return &runFixture{t: t, paths: paths, env: map[string]string{"FLEDGE_HOME": paths.Root(), "NO_COLOR": "1"}}
}

// install writes a plugin's tree and plugins.toml entry directly.
func (f *runFixture) install(name, protocol string, commands map[string]string, files map[string]string, grants manifest.Capabilities) {
	f.t.Helper()
	dir := f.paths.PluginDir(name)
	var m strings.Builder
	fmt.Fprintf(&m, "[plugin]\nname = %q\nversion = \"0.1.0\"\n", name)
	if protocol != "" {
		fmt.Fprintf(&m, "protocol = %q\n", protocol)
	}
	var cmds []string
	for c, bin := range commands {
		fmt.Fprintf(&m, "[[commands]]\nname = %q\nbinary = %q\n", c, bin)
		cmds = append(cmds, c)
	}
	sort.Strings(cmds)
	files["plugin.toml"] = m.String()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(content, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			f.t.Fatal(err)
		}
	}
	err := lockfile.NewStore(f.paths.PluginsFile(), f.paths.PluginsLock()).Update(func(lf *lockfile.File) error {
		lf.Put(lockfile.Plugin{Name: name, Source: "./" + name, Version: "0.1.0", Installed: "2026-01-01",
			Commands: cmds, Capabilities: grants, Kind: lockfile.KindLocalCopy, Protocol: protocol})
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// fledge runs fledge in-process with no terminal.
func (f *runFixture) fledge(args ...string) (code int, stdout, stderr string) {
	f.t.Helper()
	out, errOut := &testutil.SyncBuffer{}, &testutil.SyncBuffer{}
	s := &IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut, Getenv: func(k string) string { return f.env[k] }}
	done := make(chan int, 1)
	go func() { done <- Main(args, s, "test") }()
	select {
	case code = <-done:
	case <-time.After(testutil.WaitLimit):
		f.t.Fatalf("fledge %v did not finish", args)
	}
	return code, out.String(), errOut.String()
}

const argsPlugin = `#!/bin/sh
for a in "$@"; do printf '[%s]\n' "$a"; done
echo "dir=$FLEDGE_PLUGIN_DIR"
echo "to stderr" >&2
exit 7
`

func TestPluginCommandArgsAndExitCodePassThrough(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t)
	f.install("fledge-plugin-args", "", map[string]string{"args": "bin/args"}, map[string]string{"bin/args": argsPlugin}, manifest.Capabilities{})
	code, out, errOut := f.fledge("args", "--help", "--json", "two words", "", "-x")
	if code != 7 {
		t.Errorf("exit code = %d, want the plugin's 7 (stderr %q)", code, errOut)
	}
	real, _ := filepath.EvalSymlinks(f.paths.PluginDir("fledge-plugin-args"))
	want := "[--help]\n[--json]\n[two words]\n[]\n[-x]\ndir=" + real + "\n"
	if out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	if errOut != "to stderr\n" {
		t.Errorf("stderr = %q", errOut)
	}
}

const protoPlugin = `#!/bin/sh
IFS= read -r init
printf '%s\n' '{"type":"output","text":"hello "}'
printf '%s\n' '{"type":"log","level":"warn","message":"careful"}'
printf '%s\n' '{"type":"exec","id":1,"command":"echo hi"}'
IFS= read -r resp
printf '{"type":"output","text":"%s\\n"}\n' "$*"
case "$resp" in *'"code":126'*) exit 3 ;; esac
`

func TestPluginsRunJSON(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t)
	f.install("fledge-plugin-proto", "fledge-v1", map[string]string{"proto": "bin/proto"}, map[string]string{"bin/proto": protoPlugin}, manifest.Capabilities{})
	code, out, errOut := f.fledge("plugins", "run", "proto", "--json", "--ni", "a", "--", "--json")
	if code != 3 {
		t.Errorf("exit code = %d, want 3; stderr:\n%s", code, errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	keys := []string{}
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := []string{"command", "error", "exit_code", "output", "schema_version", "success"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("fields = %v, want %v", keys, want)
	}
	if doc["schema_version"] != 1.0 || doc["command"] != "proto" || doc["success"] != false || doc["exit_code"] != 3.0 {
		t.Errorf("doc = %v", doc)
	}
	if doc["output"] != "hello a --json\n" {
		t.Errorf("output = %q", doc["output"])
	}
	e, _ := doc["error"].(map[string]any)
	if e["code"] != "capability_not_allowed" {
		t.Errorf("error = %v, want capability_not_allowed", doc["error"])
	}
	if !strings.Contains(errOut, "  WARN [fledge-plugin-proto] careful") || !strings.Contains(errOut, "denied exec") {
		t.Errorf("stderr = %q", errOut)
	}
}

func TestPluginsRunJSONUnknownCommand(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t)
	code, out, _ := f.fledge("plugins", "run", "--json", "missing")
	if code != ExitUsage {
		t.Errorf("exit code = %d, want %d", code, ExitUsage)
	}
	var doc runResultDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if doc.Error == nil || doc.Error.Code != "unknown_command" || doc.ExitCode != nil || doc.Success {
		t.Errorf("doc = %+v", doc)
	}
	code, _, errOut := f.fledge("missing", "x")
	if code != ExitUsage || !strings.Contains(errOut, "unknown command") || !strings.Contains(errOut, "fledge plugins list") {
		t.Errorf("fledge missing: code %d, stderr %q", code, errOut)
	}
}

func TestPluginsRunUsageErrorUnderJSON(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t)
	code, out, _ := f.fledge("plugins", "run", "--json", "--timeout", "soon", "x")
	var doc jsonErrorDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitUsage || doc.Error.Code != CodeUsage || doc.SchemaVersion != 1 {
		t.Errorf("code %d, doc %+v (%v): %s", code, doc, err, out)
	}
	code, out, errOut := f.fledge("plugins", "run")
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "needs the command") {
		t.Errorf("no command: code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestPluginsRunProtocolMismatch(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t)
	f.install("fledge-plugin-future", "fledge-v2", map[string]string{"future": "bin/f"}, map[string]string{"bin/f": "#!/bin/sh\necho ran\n"}, manifest.Capabilities{})
	code, out, errOut := f.fledge("plugins", "run", "future", "--json")
	if code != ExitFailure {
		t.Errorf("exit code = %d", code)
	}
	var doc runResultDoc
	_ = json.Unmarshal([]byte(out), &doc)
	if doc.Error == nil || doc.Error.Code != "protocol_version_mismatch" || !strings.Contains(doc.Error.Message, "fledge-v2") || !strings.Contains(doc.Error.Message, "upgrade") {
		t.Errorf("doc = %+v; stderr %q", doc, errOut)
	}
}

func TestParseRunArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want runOptions
		err  bool
	}{
		{args: []string{"hello"}, want: runOptions{Command: "hello", Args: []string{}}},
		{args: []string{"--ni", "hello", "a", "--json", "b"}, want: runOptions{Command: "hello", Args: []string{"a", "b"}, NonInteractive: true, JSON: true}},
		{args: []string{"hello", "--timeout", "2s", "--x", "--", "--ni", "--json"}, want: runOptions{Command: "hello", Args: []string{"--x", "--ni", "--json"}, Timeout: 2 * time.Second}},
		{args: []string{"--timeout=1.5", "--", "hello", "--ni"}, want: runOptions{Command: "hello", Args: []string{"--ni"}, Timeout: 1500 * time.Millisecond}},
		{args: []string{}, err: true},
		{args: []string{"--bogus", "hello"}, err: true},
		{args: []string{"hello", "--timeout"}, err: true},
		{args: []string{"hello", "--timeout", "-1s"}, err: true},
	}
	for _, tt := range tests {
		got, err := parseRunArgs(tt.args)
		if (err != nil) != tt.err {
			t.Errorf("parseRunArgs(%q) error = %v", tt.args, err)
			continue
		}
		if err == nil && !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("parseRunArgs(%q) = %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}
