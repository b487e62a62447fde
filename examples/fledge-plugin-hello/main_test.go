package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/pluginsdk"
	"github.com/corvidlabs/fledge-go/pluginsdk/plugintest"
	"github.com/corvidlabs/fledge-go/protocol"
)

func TestManifestIsValid(t *testing.T) {
	t.Parallel()
	m, err := manifest.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	if ps := m.Validate(); len(ps) > 0 {
		t.Fatalf("plugin.toml has problems (warnings count too):\n%v", ps)
	}
	if !m.IsProtocol() || m.Plugin.Name != "fledge-plugin-hello" || m.Plugin.Version != "0.1.0" {
		t.Fatalf("plugin = %+v", m.Plugin)
	}
	cmd, ok := m.Command("hello")
	if !ok || cmd.Binary != "bin/fledge-hello" || len(cmd.Args) != 3 {
		t.Fatalf("hello command = %+v", cmd)
	}
	// The build hook must produce the binary the command names.
	if m.Hooks.Build != "go build -o "+cmd.Binary+" ." {
		t.Fatalf("hooks.build = %q does not build %s", m.Hooks.Build, cmd.Binary)
	}
	if caps := m.Capabilities; !caps.Exec || !caps.Store || !caps.Metadata || caps.Network {
		t.Fatalf("capabilities = %+v", caps)
	}
}

func TestParseArgs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want options
		bad  bool
	}{
		{nil, options{"world", 5, 150 * time.Millisecond}, false},
		{[]string{"Ada"}, options{"Ada", 5, 150 * time.Millisecond}, false},
		{[]string{" ", "0"}, options{"world", 0, 150 * time.Millisecond}, false},
		{[]string{"Ada Lovelace", "3", "0"}, options{"Ada Lovelace", 3, 0}, false},
		{[]string{"a", "many"}, options{}, true},
		{[]string{"a", "101"}, options{}, true},
		{[]string{"a", "-1"}, options{}, true},
		{[]string{"a", "1", "5001"}, options{}, true},
		{[]string{"a", "1", "2", "extra"}, options{}, true},
	} {
		got, err := parseArgs(tt.args)
		if (err != nil) != tt.bad || (!tt.bad && got != tt.want) {
			t.Errorf("parseArgs(%q) = %+v, %v; want %+v, bad=%v", tt.args, got, err, tt.want, tt.bad)
		}
	}
}

func testInit(args ...string) protocol.Init {
	return protocol.Init{
		Command: "hello",
		Args:    args,
		Project: &protocol.Project{Name: "nest", Root: "/tmp/nest", Language: "go",
			Git: &protocol.Git{Branch: "main"}},
		Plugin:       protocol.PluginInfo{Name: "fledge-plugin-hello", Version: "0.1.0", Dir: "/p"},
		Fledge:       protocol.FledgeInfo{Version: "0.1.0"},
		Capabilities: protocol.Capabilities{Exec: true, Store: true, Metadata: true},
	}
}

// human answers like a person at a terminal who types "Ada", picks the
// magpie and keeps the other defaults; exec and metadata succeed.
func human(m plugintest.Message) plugintest.Reply {
	switch m.Type {
	case protocol.TypePrompt:
		return plugintest.Reply{Value: "Ada"}
	case protocol.TypeSelect:
		return plugintest.Reply{Value: "magpie"}
	case protocol.TypeExec:
		return plugintest.Reply{Value: protocol.ExecResult{Stdout: "abc1234\n"}}
	case protocol.TypeMetadata:
		return plugintest.Reply{Value: map[string]any{
			"git_tags": []string{"v0.1.0", "v0.2.0"}, "git_status": []string{}, "git_log": []string{"abc1234 init"},
		}}
	}
	return plugintest.NonInteractive(m)
}

const humanOutput = "Hello from a Go plugin, in nest (go) on branch main.\n" +
	"Hello, Ada! A fine choice: the magpie.\n" +
	"store: last time you were Grace.\n" +
	"store: saved \"Ada\" and read it back.\n" +
	"exec: git rev-parse --short HEAD → abc1234\n" +
	"metadata: tags 2, changed files 0, recent commits 1.\n" +
	"Done: every fledge-v1 message type, from Go.\n"

// checkWalkthrough asserts that every fledge-v1 message type arrived, well
// formed, and returns the concatenated output.
func checkWalkthrough(t *testing.T, msgs []plugintest.Message, steps int) string {
	t.Helper()
	seen := map[string]bool{}
	var out strings.Builder
	var bar []string
	for _, m := range msgs {
		if m.Err != nil {
			t.Errorf("malformed line %s: %v", m.Raw, m.Err)
			continue
		}
		kind := m.Type
		if m.Type == protocol.TypeProgress {
			switch {
			case m.Done:
				kind = "progress done"
			case m.Current == nil:
				kind = "spinner"
			default:
				kind = "progress bar"
				bar = append(bar, string(m.Raw))
			}
		}
		seen[kind] = true
		if m.Type == protocol.TypeOutput {
			out.WriteString(m.Text)
		}
	}
	for _, kind := range []string{"log", "output", "prompt", "confirm", "select", "multi_select",
		"progress bar", "progress done", "store", "load", "exec", "metadata", "spinner"} {
		if !seen[kind] {
			t.Errorf("no %s message", kind)
		}
	}
	if len(bar) != steps+1 {
		t.Errorf("%d progress bar updates, want %d: %v", len(bar), steps+1, bar)
	} else if last := bar[steps]; !strings.Contains(last, `"current":`+itoa(steps)+`,"total":`+itoa(steps)) {
		t.Errorf("last progress update %s is not complete", last)
	}
	return out.String()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestWalkthroughInteractive(t *testing.T) {
	t.Parallel()
	store := plugintest.Store{keyLastName: "Grace"}
	msgs, err := plugintest.Run(testInit("", "3", "0"), store.Answer(human), run)
	if err != nil {
		t.Fatal(err)
	}
	if out := checkWalkthrough(t, msgs, 3); out != humanOutput {
		t.Errorf("output:\n%s\nwant:\n%s", out, humanOutput)
	}
	if store[keyLastName] != "Ada" {
		t.Errorf("stored name = %q, want Ada", store[keyLastName])
	}
	// The prompt is validated by fledge and defaults to the name argument.
	for _, m := range msgs {
		if m.Type == protocol.TypePrompt && (m.Validate != protocol.ValidateNonEmpty || string(m.Default) != `"world"`) {
			t.Errorf("prompt %s: want validate non_empty and default \"world\"", m.Raw)
		}
	}
}

// With no terminal and nothing granted, fledge answers every question with
// its default and denies exec, store and metadata; the plugin still
// completes and says what was denied.
func TestWalkthroughNonInteractiveDenied(t *testing.T) {
	t.Parallel()
	init := testInit("Lin", "2", "0")
	init.Capabilities = protocol.Capabilities{}
	init.Project = nil
	msgs, err := plugintest.Run(init, plugintest.NonInteractive, run)
	if err != nil {
		t.Fatal(err)
	}
	want := "Hello from a Go plugin, outside any project.\n" +
		"Hello, Lin! A fine choice: the raven.\n" +
		"store: nothing stored (store not granted).\n" +
		"exec: not granted (code 126).\n" +
		"metadata: not granted (empty answer).\n" +
		"Done: every fledge-v1 message type, from Go.\n"
	if out := checkWalkthrough(t, msgs, 2); out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}

func TestDeclinedExtrasAreSkipped(t *testing.T) {
	t.Parallel()
	answer := func(m plugintest.Message) plugintest.Reply {
		switch m.Type {
		case protocol.TypeConfirm:
			return plugintest.Reply{Value: false}
		case protocol.TypeMultiSelect:
			return plugintest.Reply{Value: []string{}}
		}
		return plugintest.NonInteractive(m)
	}
	msgs, err := plugintest.Run(testInit(), answer, run)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if slices.Contains([]string{"progress", "store", "load", "exec", "metadata"}, m.Type) {
			t.Errorf("declined step still sent %s", m.Raw)
		}
	}
}

func TestCanceledRequest(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		reply plugintest.Reply
		code  int
	}{
		{"whole run", plugintest.Reply{CancelRun: protocol.ReasonUserInterrupt}, 130},
		{"this question", plugintest.Reply{Cancel: protocol.ReasonNonInteractive}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			answer := func(m plugintest.Message) plugintest.Reply {
				if m.Type == protocol.TypeSelect {
					return tt.reply
				}
				return human(m)
			}
			msgs, err := plugintest.Run(testInit(), answer, run)
			if !errors.Is(err, pluginsdk.ErrCanceled) || pluginsdk.ExitCode(err) != tt.code {
				t.Fatalf("error = %v (exit %d), want canceled, exit %d", err, pluginsdk.ExitCode(err), tt.code)
			}
			if last := msgs[len(msgs)-1]; last.Type != protocol.TypeSelect {
				t.Fatalf("plugin went on after the cancel: %s", last.Raw)
			}
		})
	}
}

// A cancel during the progress bar stops it at once and clears it.
func TestCancelDuringProgress(t *testing.T) {
	t.Parallel()
	p, h, closePlugin := plugintest.Pipe()
	defer h.Close()
	done := make(chan error, 1)
	go func() {
		defer closePlugin()
		init, err := p.RecvInit()
		if err == nil {
			err = run(p, init)
		}
		done <- err
	}()
	if err := h.SendInit(testInit("", "50", "5000")); err != nil {
		t.Fatal(err)
	}
	var last plugintest.Message
	for {
		m, err := h.Next()
		if err != nil {
			break
		}
		last = m
		switch {
		case protocol.IsRequest(m.Type):
			h.Respond(m.ID, human(m).Value)
		case m.Type == protocol.TypeProgress && m.Current != nil:
			h.Cancel(nil, protocol.ReasonUserInterrupt) // at the first update
		}
	}
	err := <-done
	if pluginsdk.ExitCode(err) != 130 {
		t.Fatalf("error = %v, want a run-wide cancel", err)
	}
	if last.Type != protocol.TypeProgress || !last.Done {
		t.Fatalf("last message %s, want progress done", last.Raw)
	}
}

// buildInto builds the plugin as its build hook does, into a copy of the
// plugin tree (plugin.toml and bin/) at dir.
func buildInto(dir string) error {
	data, err := os.ReadFile(manifest.FileName)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), data, 0o644); err != nil {
		return err
	}
	bin := filepath.Join(dir, "bin", "fledge-hello")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if treeDir != "" {
		os.RemoveAll(treeDir)
	}
	os.Exit(code)
}

func TestBuiltBinary(t *testing.T) {
	t.Parallel()
	dir := builtTree(t)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if ps := m.CheckBinaries(dir); len(ps) > 0 {
			t.Fatalf("built binary does not satisfy the manifest: %v", ps)
		}
	}
	cmd := exec.Command(filepath.Join(dir, "bin", "fledge-hello"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	h, err := plugintest.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.SendInit(testInit("", "3", "0")); err != nil {
		t.Fatal(err)
	}
	store := plugintest.Store{keyLastName: "Grace"}
	msgs, err := h.Serve(store.Answer(human))
	h.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("plugin exited: %v; stderr: %s", err, stderr.String())
	}
	if out := checkWalkthrough(t, msgs, 3); out != humanOutput {
		t.Errorf("output:\n%s\nwant:\n%s", out, humanOutput)
	}
	if stderr.Len() > 0 {
		t.Errorf("plugin wrote to stderr: %s", stderr.String())
	}

	t.Run("exits 130 on cancel", func(t *testing.T) {
		cmd := exec.Command(filepath.Join(dir, "bin", "fledge-hello"))
		h, err := plugintest.Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		h.SendInit(testInit())
		h.Serve(func(m plugintest.Message) plugintest.Reply {
			return plugintest.Reply{CancelRun: protocol.ReasonUserInterrupt}
		})
		h.Close()
		var ee *exec.ExitError
		if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("exit = %v, want code 130", err)
		}
	})

	t.Run("refuses a terminal-less misuse with a message", func(t *testing.T) {
		cmd := exec.Command(filepath.Join(dir, "bin", "fledge-hello"))
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "waiting for init") {
			t.Fatalf("run without fledge: %v, %q", err, out)
		}
	})
}
