//go:build unix

package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

func TestMain(m *testing.M) {
	cleanup := testutil.Scratch()
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// build builds pkg into dir with the build tags given.
func build(t *testing.T, dir, name, pkg, tags string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-tags", tags, "-o", out, pkg)
	cmd.Dir = "../.."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags %q %s: %v\n%s", tags, pkg, err, b)
	}
	return out
}

// plugin writes a fledge-plugin-<name> git repository under dir.
func plugin(t *testing.T, dir, name, extra, script string) string {
	t.Helper()
	root := filepath.Join(dir, "fledge-plugin-"+name)
	testutil.WriteTree(t, root, map[string]string{
		"plugin.toml": "[plugin]\nname = \"" + name + "\"\nversion = \"0.1.0\"\ndescription = \"d\"\n" + extra +
			"\n[[commands]]\nname = \"" + name + "\"\ndescription = \"d\"\nbinary = \"bin/" + name + "\"\n",
	})
	testutil.WriteFile(t, filepath.Join(root, "bin", name), []byte(script), 0o755)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "p"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	return root
}

type result struct {
	code                   int
	stdout, stderr         string
	events, grantLogLength int
}

// TestSplitBuildAnswersAsTheCommandLine: `fledge <command>` answers the
// same — stdout, stderr, exit code, and what it records in the event trail
// and the grant log — whether fastrun runs it and hands the rest to the
// command line in the same process (the ordinary build), fastrun runs it
// and execs fledge-core for the rest (the fledge_split build), or the
// command line runs it alone (fledge-core): runs that succeed, fail,
// crash, are denied a capability, print notes and logs, are refused
// before they start (unknown command, disabled plugin, policy), and run a
// wasm plugin (which the split fledge, linking no wasm runtime, hands to
// fledge-core whole), off a terminal, where fastrun takes them.
func TestSplitBuildAnswersAsTheCommandLine(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	split := filepath.Join(bin, "split")
	if err := os.Mkdir(split, 0o755); err != nil {
		t.Fatal(err)
	}
	variants := map[string]string{
		"ordinary": build(t, bin, "fledge", "./cmd/fledge", ""),
		"split":    build(t, split, "fledge", "./cmd/fledge", "fledge_split"),
		"core":     build(t, split, "fledge-core", "./cmd/fledge-core", ""),
	}

	src := t.TempDir()
	plugins := []string{
		plugin(t, src, "plain", "", "#!/bin/sh\necho \"out $*\"\necho err >&2\nexit 3\n"),
		plugin(t, src, "proto", "protocol = \"fledge-v1\"\n", `#!/bin/sh
IFS= read -r init
printf '%s\n' '{"type":"output","text":"hello "}'
printf '%s\n' '{"type":"log","level":"warn","message":"careful"}'
printf '%s\n' '{"type":"exec","id":1,"command":"echo hi"}'
IFS= read -r resp
printf '{"type":"output","text":"%s\\n"}\n' "$*"
case "$resp" in *'"code":126'*) exit 3 ;; esac
`),
		plugin(t, src, "crash", "", "#!/bin/sh\necho before\nkill -SEGV $$\n"),
		plugin(t, src, "wants", "", "#!/bin/sh\necho \"token=${SPLIT_TEST_TOKEN:-none}\"\n"),
		plugin(t, src, "off", "", "#!/bin/sh\necho never\n"),
		plugin(t, src, "wasm", "protocol = \"fledge-v1\"\nruntime = \"wasm\"\n", string(testutil.HelloWasm(3))),
	}
	denyAll := filepath.Join(src, "policy.toml")
	testutil.WriteFile(t, denyAll, []byte("[sources]\nallow = [\"github.com/nobody/*\"]\n"), 0o644)

	homes := map[string]string{}
	for name, fledge := range variants {
		home := t.TempDir()
		homes[name] = home
		for _, p := range plugins {
			if r := run(t, fledge, home, nil, "plugins", "install", p, "--yes"); r.code != 0 {
				t.Fatalf("%s: install %s: exit %d\n%s", name, p, r.code, r.stderr)
			}
		}
		if r := run(t, fledge, home, nil, "plugins", "disable", "off"); r.code != 0 {
			t.Fatalf("%s: disable: exit %d\n%s", name, r.code, r.stderr)
		}
	}

	type scenario struct {
		name   string
		env    []string
		args   []string
		stdout string // "" (captured), or one of runTo's failing stdouts
	}
	scenarios := []scenario{
		{"success with an exit code", nil, []string{"plain", "a b", "--json"}, ""},
		{"protocol: output, a log, a denied exec", nil, []string{"proto", "x"}, ""},
		{"--ni before the command", nil, []string{"--ni", "proto", "y"}, ""},
		{"crashed by a signal", nil, []string{"crash"}, ""},
		{"a withheld variable noted", []string{"SPLIT_TEST_TOKEN=s3cret"}, []string{"wants"}, ""},
		{"unknown command", nil, []string{"nosuch", "x"}, ""},
		{"disabled plugin", nil, []string{"off"}, ""},
		{"refused by the policy", []string{"FLEDGE_POLICY=" + denyAll}, []string{"plain"}, ""},
		{"a wasm plugin", nil, []string{"wasm", "x"}, ""},
		{"a wasm plugin refused by the policy", []string{"FLEDGE_POLICY=" + denyAll}, []string{"wasm"}, ""},
		{"an invalid FLEDGE_CONFINE", []string{"FLEDGE_CONFINE=maybe"}, []string{"plain"}, ""},
		{"the version", nil, []string{"--version"}, ""},
		{"a command of fledge's", nil, []string{"plugins", "list"}, ""},
		{"list --json, rendered", nil, []string{"plugins", "list", "--json"}, ""},
		{"list --json, as stored", nil, []string{"plugins", "list", "--json"}, ""},
		{"list --json, as stored, to a closed pipe", nil, []string{"plugins", "list", "--json"}, stdoutClosed},
	}
	if _, err := os.Stat(stdoutFull); err == nil {
		scenarios = append(scenarios, scenario{"list --json, as stored, to a full disk", nil, []string{"plugins", "list", "--json"}, stdoutFull})
	} else {
		t.Logf("no %s here: a listing to a full disk is not checked (%v)", stdoutFull, err)
	}
	for _, sc := range scenarios {
		results := map[string]result{}
		for name, fledge := range variants {
			results[name] = runTo(t, sc.stdout, fledge, homes[name], sc.env, sc.args...)
		}
		want := results["core"]
		for _, name := range []string{"ordinary", "split"} {
			if got := results[name]; got != want {
				t.Errorf("%s: fledge %q answers\n%+v\nbut the command line alone (fledge-core) answers\n%+v", sc.name, sc.args, got, want)
			}
		}
		if strings.Contains(want.stdout+want.stderr, "s3cret") {
			t.Errorf("%s: a withheld value was shown:\n%+v", sc.name, want)
		}
		if sc.args[0] == "wants" && !strings.Contains(want.stderr, "is not given SPLIT_TEST_TOKEN") {
			t.Errorf("%s: no note names the withheld variable:\n%+v", sc.name, want)
		}
		if sc.name == "a wasm plugin" && (want.code != 3 || want.stdout != "hello from wasm\n" || want.events == 0) {
			t.Errorf("%s: the plugin did not run (want its output, its exit code 3 and an event):\n%+v", sc.name, want)
		}
		// A stdout that fails: the error names it, and a closed pipe ends
		// fledge as it ends any program writing to one.
		if sc.stdout == stdoutFull && (want.code != 1 || want.stderr != "error: /dev/stdout: no space left on device\n") {
			t.Errorf("%s: the command line answers %+v, want exit 1 and the error naming stdout", sc.name, want)
		}
		if sc.stdout == stdoutClosed && !strings.HasSuffix(want.stderr, "[killed by broken pipe]") {
			t.Errorf("%s: the command line answers %+v, want it ended by SIGPIPE", sc.name, want)
		}
	}

	// The split fledge runs a native plugin and serves a stored listing
	// itself, starting no other program (strace counts the execve calls);
	// a wasm plugin's run and the other commands it hands to fledge-core,
	// exec'd once. A run rewrites no derived file the runs before it
	// stored (the command index, the plugin's decoded manifest), though
	// fledge and fledge-core took turns: both key them as fledge-core.
	// What needs the command line, with fledge-core gone, says what is
	// wrong and what to do.
	if strace, err := exec.LookPath("strace"); err == nil {
		core := filepath.Join(split, "fledge-core")
		for _, c := range []struct {
			args []string
			core int // how many times fledge-core is exec'd
			// steady: the run before it looked up its command in the
			// plugins.toml it finds (the policy refusals above changed it:
			// the grant log's anchor is there), so it rewrites nothing.
			steady bool
		}{
			{[]string{"plugins", "list", "--json"}, 0, false},
			{[]string{"plain"}, 0, false},
			{[]string{"plugins", "list"}, 1, false},
			{[]string{"wasm"}, 1, true},
			{[]string{"plain"}, 0, true},
		} {
			trace := filepath.Join(t.TempDir(), "trace")
			run(t, strace, homes["split"], nil, append([]string{"-f", "-qq", "-e", "trace=execve,rename,renameat,renameat2", "-o", trace, variants["split"]}, c.args...)...)
			data, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(string(data), "execve(\""+core+"\""); got != c.core {
				t.Errorf("split fledge %q: exec'd fledge-core %d times, want %d\n%s", c.args, got, c.core, data)
			}
			if c.steady && strings.Contains(string(data), "rename") {
				t.Errorf("split fledge %q rewrote a file the runs before it stored:\n%s", c.args, data)
			}
		}
	} else {
		t.Logf("no strace here: whether the split fledge started fledge-core is not checked (%v)", err)
	}
	if err := os.Rename(variants["core"], variants["core"]+".away"); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(variants["core"]+".away", variants["core"])
	if got := run(t, variants["split"], homes["split"], nil, "plugins", "info", "plain"); got.code != 1 || !strings.Contains(got.stderr, "fledge-core") || !strings.Contains(got.stderr, "hint: install fledge again") {
		t.Errorf("split fledge without fledge-core: plugins info answers %+v, want an error naming fledge-core and the fix", got)
	}
}

// run runs fledge with args in home, off a terminal (stdin is empty), and
// returns what it printed, with home's path made "$FLEDGE_HOME", and how
// long the event trail and the grant log are afterwards.
func run(t *testing.T, fledge, home string, env []string, args ...string) result {
	t.Helper()
	return runTo(t, "", fledge, home, env, args...)
}

// Stdouts that fail every write: a full disk, and a pipe nobody reads.
const (
	stdoutFull   = "/dev/full"
	stdoutClosed = "closed pipe"
)

// runTo is run with stdout captured (""), or one that fails every write
// (stdoutFull, stdoutClosed). A fledge killed by a signal has code -1 and
// the signal in stderr.
func runTo(t *testing.T, stdoutKind, fledge, home string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(fledge, args...)
	cmd.Env = append(os.Environ(), "FLEDGE_HOME="+home, "NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	switch stdoutKind {
	case stdoutFull:
		f, err := os.OpenFile(stdoutFull, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdout = f
	case stdoutClosed:
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // before fledge starts: its every write finds no reader
		defer w.Close()
		cmd.Stdout = w
	}
	err := cmd.Run()
	r := result{stdout: normal(stdout.String(), home), stderr: normal(stderr.String(), home)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.stderr += "[killed by " + ws.Signal().String() + "]"
		}
	case err != nil:
		t.Fatalf("fledge %q: %v", args, err)
	}
	r.events = lines(t, filepath.Join(home, "events.jsonl"))
	r.grantLogLength = lines(t, filepath.Join(home, "grants.log"))
	return r
}

// normal is s with home's path made "$FLEDGE_HOME" and times made "TIME":
// the variants run in homes of their own, set up at different times.
func normal(s, home string) string {
	return timestamp.ReplaceAllString(strings.ReplaceAll(s, home, "$FLEDGE_HOME"), "TIME")
}

var timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}
