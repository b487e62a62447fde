package confine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
)

// Marker is the trampoline's argv[0]. fledge started under it is not the
// CLI: this package's init hands such a process to Trampoline before
// package main runs. No path a user types looks like it.
const Marker = "[fledge confine]"

// selfExe names the running fledge binary without a path lookup, and
// without a window in which an upgrade could swap it.
const selfExe = "/proc/self/exe"

// maxArg is the largest profile passed on argv (Linux's limit on one
// argument is 128 KiB).
const maxArg = 64 << 10

// Wrap makes cmd start through the trampoline, which confines itself to p
// and then execs what cmd would have run, with the same arguments,
// environment, directory and files. Call it after cmd is built and before
// it starts.
func Wrap(cmd *exec.Cmd, p Profile) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if cmd.Path == "" || len(cmd.Args) == 0 {
		return errors.New("confine: nothing to run")
	}
	arg := string(data)
	if len(data) > maxArg {
		// Linux refuses a single argument past 128 KiB: a profile that
		// large (a temporary directory split into thousands of entries)
		// goes through a file the trampoline reads and removes.
		f, err := os.CreateTemp("", "fledge-profile-")
		if err != nil {
			return fmt.Errorf("confine: %w", err)
		}
		_, werr := f.Write(data)
		if err := f.Close(); werr == nil {
			werr = err
		}
		if werr != nil {
			_ = os.Remove(f.Name())
			return fmt.Errorf("confine: %w", werr)
		}
		arg = "@" + f.Name()
	}
	args := append([]string{Marker, arg, cmd.Path}, cmd.Args...)
	cmd.Path = selfExe
	cmd.Args = args
	return nil
}

// init diverts a process started by Wrap before package main, and before
// every package that confine does not need is initialised: fledge's
// other packages (cobra, the TUI, git, wazero, the MCP SDK) take
// milliseconds to initialise, which every confined run would pay again.
// Measured with bench/confine.sh's loop: a trampoline checked at the top
// of main took 13.7 ms, one diverted here 9.9 ms. It is the one init in
// fledge with an effect, and has none in any other process.
func init() {
	if IsTrampoline(os.Args) {
		os.Exit(Trampoline(os.Args, os.Stderr))
	}
}

// IsTrampoline reports whether the process was started by Wrap.
func IsTrampoline(args []string) bool {
	return len(args) > 0 && args[0] == Marker
}

// Trampoline is the whole life of a process started by Wrap: it applies
// the profile to itself and execs the plugin, which inherits it. It
// returns only on failure (exit code 126, as a shell's for a program it
// cannot run), having said why on stderr: a plugin that cannot be
// confined as the runner decided does not run unconfined.
func Trampoline(args []string, stderr io.Writer) int {
	if len(args) < 4 {
		fmt.Fprintln(stderr, "fledge: the confinement trampoline was started without a plugin")
		return 126
	}
	var p Profile
	data := []byte(args[1])
	if name, ok := strings.CutPrefix(args[1], "@"); ok {
		var err error
		data, err = os.ReadFile(name)
		_ = os.Remove(name)
		if err != nil {
			fmt.Fprintf(stderr, "fledge: the confinement trampoline got no profile: %v\n", err)
			return 126
		}
	}
	if err := json.Unmarshal(data, &p); err != nil {
		fmt.Fprintf(stderr, "fledge: the confinement trampoline got no profile: %v\n", err)
		return 126
	}
	// The profile binds this thread alone, so the exec must happen here.
	runtime.LockOSThread()
	if err := Apply(p); err != nil {
		fmt.Fprintf(stderr, "fledge: cannot confine %s: %v\n", args[2], err)
		return 126
	}
	err := syscall.Exec(args[2], args[3:], os.Environ())
	fmt.Fprintf(stderr, "fledge: start %s: %v\n", args[2], err)
	return 126
}
