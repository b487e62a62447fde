//go:build unix

package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// terminalQueries are sequences that ask a terminal to answer: colours
// (OSC 10/11/12 "?"), the cursor position (DSR 6), device attributes,
// mode reports (DECRQM), the kitty keyboard flags, the terminal's name,
// and termcap entries.
var terminalQueries = []string{
	"\x1b]10;?", "\x1b]11;?", "\x1b]12;?", "\x1b]4;",
	"\x1b[6n", "\x1b[?6n", "\x1b[5n",
	"\x1b[c", "\x1b[0c", "\x1b[>c", "\x1b[=c",
	"$p", "\x1b[?u", "\x1b[>q", "\x1b[>0q", "\x1bP+q",
}

// runOnControllingTTY runs fledge as the session leader of a fresh
// pseudo-terminal (stdin, stdout and stderr), as a shell would, on a
// terminal that never answers anything. It returns what fledge wrote.
func (e *hEnv) runOnControllingTTY(args ...string) ([]byte, hRes) {
	e.t.Helper()
	master, slave, err := hOpenPTY()
	if err != nil {
		e.t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hardTimeout)
	defer cancel()
	cmd := e.command(ctx, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	done := drainPTY(master)
	err = cmd.Run()
	slave.Close()
	out := <-done
	r := hRes{args: args, out: out}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		e.t.Fatalf("fledge %s hung on a terminal that does not answer; it wrote %q", strings.Join(args, " "), out)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		e.t.Fatal(err)
	}
	return out, r
}

// fledge never asks the terminal anything unless it asks the user a
// question: not at start-up, not to list, not around a plugin's run. On a
// terminal that never answers, every command writes no query and exits.
func TestNoTerminalQueries(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("fr", hPlugin("fledge-plugin-fr", "1.0.0", ""))
	e.ok("plugins", "install", "./fr", "--copy", "--json")
	for _, args := range [][]string{
		{"--version"},
		{"plugins", "list"},
		{"plugins", "list", "--json"},
		{"plugins", "verify"},
		{"fr"},
		{"plugins", "run", "fr", "--json"},
		{"no-such-command"},
	} {
		out, r := e.runOnControllingTTY(args...)
		for _, q := range terminalQueries {
			if i := bytes.Index(out, []byte(q)); i >= 0 {
				t.Errorf("fledge %s wrote the terminal query %q: %q", strings.Join(args, " "), q, out)
			}
		}
		if args[0] == "fr" && !bytes.Contains(out, []byte("fr 1.0.0")) {
			t.Errorf("fledge fr on a terminal: %v", r)
		}
	}
}
