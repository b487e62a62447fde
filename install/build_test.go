package install

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
)

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	testutil.WriteFile(t, path, []byte(data), mode)
}

func unixOnly(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("hooks run through sh here")
	}
}

func TestBuildCommand(t *testing.T) {
	cmds := []manifest.Command{{Name: "run", Binary: "bin/run"}}
	cases := []struct {
		name     string
		hook     string
		commands []manifest.Command
		files    map[string]string // path → "" for a file, "dir" for a directory, "link" for a symlink
		want     string
		auto     bool
	}{
		{name: "hook wins over detection", hook: "make all", commands: cmds, files: map[string]string{"Cargo.toml": ""}, want: "make all"},
		{name: "hook wins even when binaries exist", hook: "make", commands: cmds, files: map[string]string{"bin/run": ""}, want: "make"},
		{name: "cargo", commands: cmds, files: map[string]string{"Cargo.toml": ""}, want: "cargo build --release", auto: true},
		{name: "swift", commands: cmds, files: map[string]string{"Package.swift": ""}, want: "swift build -c release", auto: true},
		{name: "go", commands: cmds, files: map[string]string{"go.mod": ""}, want: "go build .", auto: true},
		{name: "npm", commands: cmds, files: map[string]string{"package.json": ""}, want: "npm install", auto: true},
		{name: "cargo before go and npm", commands: cmds, files: map[string]string{"package.json": "", "go.mod": "", "Cargo.toml": ""}, want: "cargo build --release", auto: true},
		{name: "swift before go", commands: cmds, files: map[string]string{"go.mod": "", "Package.swift": ""}, want: "swift build -c release", auto: true},
		{name: "skipped when binaries exist", commands: cmds, files: map[string]string{"Cargo.toml": "", "bin/run": ""}, want: ""},
		{name: "one of two missing", commands: append(cmds, manifest.Command{Name: "b", Binary: "bin/b"}), files: map[string]string{"go.mod": "", "bin/run": ""}, want: "go build .", auto: true},
		{name: "nothing to detect", commands: cmds, files: map[string]string{"Makefile": ""}, want: ""},
		{name: "only in a subdirectory", commands: cmds, files: map[string]string{"sub/Cargo.toml": ""}, want: ""},
		{name: "marker is a directory", commands: cmds, files: map[string]string{"Cargo.toml": "dir"}, want: ""},
		{name: "marker is a symlink", commands: cmds, files: map[string]string{"Cargo.toml": "link"}, want: ""},
		{name: "no commands", files: map[string]string{"Cargo.toml": ""}, want: ""},
		{name: "bad binary path ignored", commands: []manifest.Command{{Name: "x", Binary: "../x"}}, files: map[string]string{"Cargo.toml": ""}, want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "elsewhere"), "", 0o644)
			for p, kind := range tc.files {
				full := filepath.Join(dir, p)
				switch kind {
				case "dir":
					os.MkdirAll(full, 0o755)
				case "link":
					if runtime.GOOS == "windows" {
						t.Skip("symlink")
					}
					os.Symlink("elsewhere", full)
				default:
					writeFile(t, full, "", 0o755)
				}
			}
			m := &manifest.Manifest{Commands: tc.commands, Hooks: manifest.Hooks{Build: tc.hook}}
			got, auto := BuildCommand(m, dir)
			if got != tc.want || auto != tc.auto {
				t.Errorf("BuildCommand = %q, %v; want %q, %v", got, auto, tc.want, tc.auto)
			}
		})
	}
}

// countingWriter counts bytes and lines without keeping them. Writes are
// serialised by runHook's sanitiser; the mutex keeps the race detector
// honest about that.
type countingWriter struct {
	mu       sync.Mutex
	n, lines int
	counts   map[byte]int
	bad      []byte
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += len(p)
	for _, b := range p {
		switch b {
		case '\n':
			c.lines++
		case 'O', 'E':
			c.counts[b]++
		case 0x1b, '\r', 0x07:
			c.bad = append(c.bad, b)
		}
	}
	return len(p), nil
}

// A hook that writes 10 MiB to stdout and 10 MiB to stderr at once runs to
// completion: both streams are drained while it runs.
func TestRunHookFloodsBothStreams(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	const perStream = 10 << 20
	line := func(c string) string { return strings.Repeat(c, 99) }
	cmd := "yes " + line("O") + " | head -c " + strconv.Itoa(perStream) + " & " +
		"yes " + line("E") + " | head -c " + strconv.Itoa(perStream) + " >&2; wait"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a deadlock guard, not a speed check
	defer cancel()
	out := &countingWriter{counts: map[byte]int{}}
	if err := testInstaller(t).runHook(ctx, "build", cmd, t.TempDir(), os.Environ(), out); err != nil {
		t.Fatalf("runHook: %v", err)
	}
	// Every O and E byte arrived (line breaks between them are not
	// guaranteed, since both streams share one pipe).
	full, part := perStream/100, perStream%100
	want := full*99 + part
	if out.counts['O'] != want || out.counts['E'] != want {
		t.Errorf("got %d O and %d E bytes, want %d each", out.counts['O'], out.counts['E'], want)
	}
	if out.lines < 2*full {
		t.Errorf("got %d lines, want at least %d", out.lines, 2*full)
	}
	if len(out.bad) > 0 {
		t.Errorf("control bytes reached the output: %q", out.bad[:min(len(out.bad), 10)])
	}
	t.Logf("streamed %d MiB of hook output in %d lines", out.n>>20, out.lines)
}

func TestRunHookFailureTail(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	dir := t.TempDir()
	cmd := `i=1; while [ $i -le 100 ]; do echo "line $i"; i=$((i+1)); done; printf '\033[2J\033]0;owned\007fatal: \033[31mboom\033[0m\n' >&2; printf 'no newline at end'; exit 3`
	var out bytes.Buffer
	err := testInstaller(t).runHook(context.Background(), "post_install", cmd, dir, os.Environ(), &out)
	var he *HookError
	if !errors.As(err, &he) {
		t.Fatalf("runHook = %v, want *HookError", err)
	}
	if he.Hook != "post_install" || he.Command != cmd {
		t.Errorf("HookError names %q / %q", he.Hook, he.Command)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("underlying error = %v, want exit status 3", he.Err)
	}
	lines := strings.Split(he.Tail, "\n")
	if len(lines) != tailLines {
		t.Errorf("Tail has %d lines, want %d:\n%s", len(lines), tailLines, he.Tail)
	}
	if last := lines[len(lines)-1]; last != "no newline at end" {
		t.Errorf("last tail line = %q, want the unterminated final line", last)
	}
	if !strings.Contains(he.Tail, "fatal: boom") || !strings.Contains(he.Tail, "line 100") || strings.Contains(he.Tail, "line 80\n") {
		t.Errorf("Tail does not hold the last lines:\n%s", he.Tail)
	}
	if strings.ContainsAny(he.Tail, "\x1b\x07") || strings.ContainsAny(err.Error(), "\x1b\x07") {
		t.Errorf("escape sequences in the tail: %q", he.Tail)
	}
	if !strings.Contains(err.Error(), "fatal: boom") {
		t.Errorf("error message lacks the tail: %s", err)
	}
	// The full output was streamed too, sanitised, every line prefixed.
	if strings.ContainsAny(out.String(), "\x1b\x07") || !strings.Contains(out.String(), "line 1\n") {
		t.Errorf("streamed output unsanitised or incomplete:\n%q", out.String()[:200])
	}
}

func TestRunHookSanitises(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	var out bytes.Buffer
	cmd := `printf 'a\033]0;title\007b\033[2Jc\033[31mred\033[0m\rover\n'; printf '\033]52;c;ZXZpbA==\007clip\n'; printf '\342\200\256bidi\n'`
	if err := testInstaller(t).runHook(context.Background(), "build", cmd, t.TempDir(), os.Environ(), &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if strings.ContainsAny(s, "\x1b\x07\r\u202e") {
		t.Errorf("unsafe bytes in hook output: %q", s)
	}
	for _, w := range []string{"abcredover", "clip", "bidi"} {
		if !strings.Contains(s, w) {
			t.Errorf("output %q lost the text %q", s, w)
		}
	}
}

func TestRunHookScriptInDir(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "build.sh"), "#!/bin/sh\necho \"direct:$1:$(pwd)\"\n", 0o755)
	writeFile(t, filepath.Join(dir, "scripts", "setup"), "echo \"via-sh:$FLEDGE_PLUGIN_DIR\"\n", 0o644) // not executable
	in := Installer{Env: []string{"PATH=" + os.Getenv("PATH")}}
	env := in.hookEnv("p", "build.sh", dir, nil, nil)

	// "build.sh" is not on PATH, so only running it directly works.
	var out bytes.Buffer
	if err := testInstaller(t).runHook(context.Background(), "build", "build.sh", dir, env, &out); err != nil {
		t.Fatalf("script hook: %v\n%s", err, out.String())
	}
	real, _ := filepath.EvalSymlinks(dir)
	if !strings.Contains(out.String(), "direct::") || !(strings.Contains(out.String(), dir) || strings.Contains(out.String(), real)) {
		t.Errorf("script output %q: not run directly in the plugin dir", out.String())
	}

	out.Reset()
	if err := testInstaller(t).runHook(context.Background(), "post_install", "scripts/setup", dir, env, &out); err != nil {
		t.Fatalf("non-executable script hook: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "via-sh:"+dir) {
		t.Errorf("output %q: FLEDGE_PLUGIN_DIR not set to %s", out.String(), dir)
	}

	// A name that is not a file in the dir goes to the shell.
	out.Reset()
	if err := testInstaller(t).runHook(context.Background(), "build", "echo shell && echo works", dir, env, &out); err != nil || !strings.Contains(out.String(), "shell\n") || !strings.Contains(out.String(), "works") {
		t.Errorf("shell hook: %v %q", err, out.String())
	}
	// Hooks read no terminal: stdin is empty.
	out.Reset()
	if err := testInstaller(t).runHook(context.Background(), "build", "cat; echo eof", dir, env, &out); err != nil || !strings.Contains(out.String(), "eof") {
		t.Errorf("stdin hook: %v %q", err, out.String())
	}
}

// A hook writing one enormous line without a newline is passed on in
// bounded pieces, every byte of it.
func TestRunHookHugeLine(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	const n = 3 << 20
	out := &countingWriter{counts: map[byte]int{}}
	cmd := "head -c " + strconv.Itoa(n) + " /dev/zero | tr '\\000' O"
	if err := testInstaller(t).runHook(context.Background(), "build", cmd, t.TempDir(), os.Environ(), out); err != nil {
		t.Fatal(err)
	}
	if out.counts['O'] != n {
		t.Errorf("got %d bytes of the line, want %d", out.counts['O'], n)
	}
	if min := n / (4 * maxLine); out.lines < min {
		t.Errorf("the line came out in %d pieces, want at least %d (bounded buffering)", out.lines, min)
	}
}

// A hook that cannot be shown byte-exact never runs, whoever calls runHook
// (a recorded post_remove, a build command): the 8-bit OSC … BEL here hid
// the second line on every display.
func TestRunHookRefusesWhatCannotBeShown(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	dir := t.TempDir()
	for _, cmd := range []string{
		"true #\u009d\ntouch pwned\n#\x07",
		"true #\x1b]0;\ntouch pwned\n#\x07",
		"touch pwned \u202e",
		"true\rtouch pwned",
	} {
		var out bytes.Buffer
		err := testInstaller(t).runHook(context.Background(), manifest.HookPostRemove, cmd, dir, os.Environ(), &out)
		var ue *UnsafeCommandError
		if !errors.As(err, &ue) || ue.Hook != manifest.HookPostRemove {
			t.Fatalf("testInstaller(t).runHook(%q) = %v, want an *UnsafeCommandError", cmd, err)
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\x1b\x07\r\n\u009d\u202e") || !strings.Contains(msg, "post_remove") {
			t.Errorf("the refusal hides or loses text: %q", msg)
		}
		if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
			t.Fatalf("runHook ran %q", cmd)
		}
	}
}

// testInstaller runs hooks with a FLEDGE_HOME of its own.
func testInstaller(t *testing.T) *Installer {
	t.Helper()
	p, err := home.New(filepath.Join(t.TempDir(), "fledge"))
	if err != nil {
		t.Fatal(err)
	}
	return &Installer{Paths: p}
}

// A hook of a plugin that declares no environment is given the base
// environment; the withheld variables its command or its script names
// are named in one note with the grant command, never with a value.
func TestHookEnvNamesWhatItsScriptReads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "hooks", "setup.sh"), "#!/bin/sh\ncurl -H \"Bearer $CORVID_TOKEN\" \"$CORVID_URL\"\n", 0o755)
	var log bytes.Buffer
	in := Installer{Env: []string{"PATH=/bin", "HOME=/h", "CORVID_TOKEN=ctok-value", "CORVID_URL=http://x", "OTHER_SECRET=o", "DEPLOY_KEY=k"}, Log: &log}
	env := in.hookEnv("fledge-plugin-b", "hooks/setup.sh --key $DEPLOY_KEY", dir, nil, nil)
	if want := "  note: the hooks of fledge-plugin-b are not given CORVID_TOKEN, CORVID_URL, DEPLOY_KEY (the hook names them): " +
		"fledge plugins grant fledge-plugin-b env:CORVID_TOKEN env:CORVID_URL env:DEPLOY_KEY\n"; log.String() != want {
		t.Errorf("note:\n%s\nwant:\n%s", log.String(), want)
	}
	if strings.Contains(log.String(), "ctok-value") {
		t.Error("the note holds a value")
	}
	if want := []string{"PATH=/bin", "HOME=/h", "FLEDGE_PLUGIN_DIR=" + dir}; !reflect.DeepEqual(env, want) {
		t.Errorf("env = %q, want %q", env, want)
	}
	in.Unconfined = "FLEDGE_CONFINE=off"
	log.Reset()
	if env := in.hookEnv("fledge-plugin-b", "hooks/setup.sh", dir, nil, nil); len(env) != 7 || log.Len() != 0 {
		t.Errorf("unconfined: env %q, note %q", env, log.String())
	}
}
