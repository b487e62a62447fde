package runner

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

func TestHelloShellEveryMessageNonInteractive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installScript("fledge-plugin-hello", "hello", "hello.sh", "fledge-v1", manifest.Capabilities{Exec: true, Store: true, Metadata: true})
	res, err := e.run(Request{Command: "hello"})
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, e.stderr)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", res.ExitCode, e.stderr)
	}
	out := e.stdout.String()
	want := `name=world color=green toppings=["cheese","pepperoni"] loaded=world exec=yes meta=yes`
	if !strings.Contains(out, want) {
		t.Errorf("stdout = %q, want it to contain %q", out, want)
	}
	if !strings.HasPrefix(out, "Welcome to hello!\nHello, world!\n") {
		t.Errorf("stdout starts %q", out)
	}
	if w := e.ui.warnings(); w != "" {
		t.Errorf("unexpected warnings: %s", w)
	}
	errOut := e.stderr.String()
	for _, s := range []string{"hello: init received", "  INFO [fledge-plugin-hello] hello started", "  INFO [fledge-plugin-hello] picked green"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("stderr lacks %q:\n%s", s, errOut)
		}
	}
	if n := len(e.ui.progress); n != 6 {
		t.Errorf("progress updates = %d, want 6 (3 bar, done, spinner, done): %+v", n, e.ui.progress)
	}
	if data, err := os.ReadFile(e.paths.StoreFile("fledge-plugin-hello")); err != nil || !strings.Contains(string(data), `"last_user": "world"`) {
		t.Errorf("store file: %q, %v", data, err)
	}
}

func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.run(Request{Command: "nope"})
	if CodeOf(err) != CodeUnknownCommand || !errors.Is(err, ErrUnknownCommand) {
		t.Fatalf("err = %v (code %q)", err, CodeOf(err))
	}
	// A plugin's name is not a command; the error says what it provides.
	e.installGo("fledge-plugin-tools", "tool-a", manifest.Capabilities{})
	res, err := e.run(Request{Command: "tools"})
	if CodeOf(err) != CodeUnknownCommand || res.Started || !strings.Contains(err.Error(), "commands are: tool-a") {
		t.Errorf("err = %v", err)
	}
}
