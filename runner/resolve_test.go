package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

func TestResolveRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	outside := filepath.Join(e.dir, "outside.sh")
	writeFile(t, outside, "#!/bin/sh\necho escaped\n", 0o755)
	dir := e.install(plugin{name: "fledge-plugin-esc", commands: map[string]string{"esc": "bin/run", "gone": "bin/gone", "plain": "bin/plain"},
		files: map[string]string{"bin/plain": "not a script"}})
	mustMkdir(t, filepath.Join(dir, "bin"))
	if err := os.Symlink(outside, filepath.Join(dir, "bin", "run")); err != nil {
		t.Fatal(err)
	}
	e.install(plugin{name: "fledge-plugin-wasm", commands: map[string]string{"wasm": "x.wasm"}, files: map[string]string{"x.wasm": "not wasm"},
		manifest: "[plugin]\nname = \"fledge-plugin-wasm\"\nversion = \"1.0.0\"\nruntime = \"wasm\"\nprotocol = \"fledge-v1\"\n[[commands]]\nname = \"wasm\"\nbinary = \"x.wasm\"\n"})
	e.install(plugin{name: "fledge-plugin-jvm", commands: map[string]string{"jvm": "x.jar"}, files: map[string]string{"x.jar": "#!/bin/sh\n"},
		manifest: "[plugin]\nname = \"fledge-plugin-jvm\"\nversion = \"1.0.0\"\nruntime = \"jvm\"\n[[commands]]\nname = \"jvm\"\nbinary = \"x.jar\"\n"})
	e.install(plugin{name: "fledge-plugin-edited", commands: map[string]string{"edited": "bin/x"},
		manifest: "[plugin]\nname = \"fledge-plugin-edited\"\nversion = \"1.0.0\"\n[[commands]]\nname = \"other\"\nbinary = \"bin/x\"\n"})
	// Records made before binaries in .git were refused: one names it, one
	// reaches it through a symlinked directory.
	e.install(plugin{name: "fledge-plugin-gitbin", commands: map[string]string{"gitbin": ".git/run"},
		files: map[string]string{".git/run": "#!/bin/sh\necho escaped\n"}})
	gitlink := e.install(plugin{name: "fledge-plugin-gitlink", commands: map[string]string{"gitlink": "bin/run"},
		files: map[string]string{".GIT/run": "#!/bin/sh\necho escaped\n"}})
	if err := os.Symlink(".GIT", filepath.Join(gitlink, "bin")); err != nil {
		t.Fatal(err)
	}
	// A manifest beyond the key bound is refused before it is decoded.
	var tables strings.Builder
	for i := range manifest.MaxKeys {
		fmt.Fprintf(&tables, "[t%d]\n", i)
	}
	e.install(plugin{name: "fledge-plugin-keys", commands: map[string]string{"keys": "bin/x"},
		manifest: "[plugin]\nname = \"fledge-plugin-keys\"\nversion = \"1.0.0\"\n[[commands]]\nname = \"keys\"\nbinary = \"bin/x\"\n" +
			tables.String(), files: map[string]string{"bin/x": "#!/bin/sh\necho ran\n"}})
	e.install(plugin{name: "fledge-plugin-missing", commands: map[string]string{"missing": "bin/x"}})
	os.RemoveAll(e.paths.PluginDir("fledge-plugin-missing"))
	// A fledge-<command> program on PATH is never a plugin.
	pathDir := filepath.Join(e.dir, "pathbin")
	writeFile(t, filepath.Join(pathDir, "fledge-onpath"), "#!/bin/sh\necho hijack\n", 0o755)
	e.environ = append(e.environ, "PATH="+pathDir+":"+os.Getenv("PATH"))

	tests := map[string]string{
		"esc":     CodeBinaryOutsidePlugin,
		"gone":    CodeLaunchFailed,
		"plain":   CodeLaunchFailed,
		"wasm":    CodeLaunchFailed, // not a module
		"jvm":     CodeUnsupportedRuntime,
		"edited":  CodeLaunchFailed,
		"missing": CodePluginMissing,
		"onpath":  CodeUnknownCommand,
		"gitbin":  CodeBinaryOutsidePlugin,
		"gitlink": CodeBinaryOutsidePlugin,
		"keys":    CodeLaunchFailed,
	}
	for cmd, code := range tests {
		res, err := e.run(Request{Command: cmd})
		if CodeOf(err) != code || res.Started {
			t.Errorf("%s: err %v (code %q), started %v; want %s", cmd, err, CodeOf(err), res.Started, code)
		}
		if cmd == "keys" && (err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d keys", manifest.MaxKeys))) {
			t.Errorf("keys: error %v does not name the key bound", err)
		}
		if strings.HasPrefix(cmd, "git") && (err == nil || !strings.Contains(err.Error(), ".git directory") || !strings.Contains(err.Error(), "refusing to run it")) {
			t.Errorf("%s: error %v does not say the binary is in .git and refused", cmd, err)
		}
	}
	if strings.Contains(e.stdout.String(), "escaped") || strings.Contains(e.stdout.String(), "hijack") {
		t.Errorf("something ran: %q", e.stdout.String())
	}
}

func TestNativePlugin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	script := "#!/bin/sh\nprintf '%s|' \"$@\"; echo \"$FLEDGE_PLUGIN_DIR\"; read line; echo \"in=$line\"; echo oops >&2; exit 4\n"
	dir := e.install(plugin{name: "fledge-plugin-native", commands: map[string]string{"native": "run.sh"}, files: map[string]string{"run.sh": script},
		grants: manifest.Capabilities{Exec: true}})
	r := e.runner()
	r.Stdin = strings.NewReader("typed\n")
	res, err := e.runWith(r, Request{Command: "native", Args: []string{"a b", "--c"}})
	if err != nil || res.ExitCode != 4 || res.Protocol != "" {
		t.Fatalf("err %v, result %+v", err, res)
	}
	if want := "a b|--c|" + dir + "\nin=typed\n"; e.stdout.String() != want {
		t.Errorf("stdout = %q, want %q", e.stdout.String(), want)
	}
	if e.stderr.String() != "oops\n" {
		t.Errorf("stderr = %q", e.stderr.String())
	}
	// Killed by a signal: 128+n, reported as crashed.
	e.install(plugin{name: "fledge-plugin-crash", commands: map[string]string{"crash": "run.sh"}, files: map[string]string{"run.sh": "#!/bin/sh\nkill -SEGV $$\n"}})
	res, err = e.run(Request{Command: "crash"})
	if CodeOf(err) != CodeCrashed || res.ExitCode != 128+11 || !res.Signaled {
		t.Errorf("crash: err %v, exit %d", err, res.ExitCode)
	}
	// Under capture the output goes to the result.
	res, err = e.runWith(r, Request{Command: "native", Capture: true})
	if err != nil || !strings.HasPrefix(res.Output, "|"+dir) {
		t.Errorf("capture: %v %q", err, res.Output)
	}
}

func TestNativeTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(plugin{name: "fledge-plugin-slow", commands: map[string]string{"slow": "run.sh"},
		files: map[string]string{"run.sh": "#!/bin/sh\ntrap 'echo got-int; exit 9' INT\necho started\nsleep 30 & wait\n"}})
	// The timeout is made to expire once the plugin has set its trap; the
	// patient runner's SIGTERM cannot overtake a trap a busy machine runs
	// late.
	res, err := stopAfter(t, e, e.patient(), Request{Command: "slow"}, "started", errRunTimeout)
	if CodeOf(err) != CodeTimeout {
		t.Fatalf("err = %v", err)
	}
	if res.ExitCode != 9 || !strings.Contains(e.stdout.String(), "got-int") {
		t.Errorf("exit %d, stdout %q", res.ExitCode, e.stdout.String())
	}
}
