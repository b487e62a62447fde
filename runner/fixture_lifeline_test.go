//go:build linux

package runner

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
)

// envHold makes TestHoldStubbornPlugins run, in the test binary that
// TestStubbornPluginsDieWithTheTest starts: "all", or the pid that
// stubborn.sh's lifeline file is to name.
const envHold = "FLEDGE_TEST_HOLD_STUBBORN"

// The plugins that ignore what fledge sends them (stubborn.sh, the native
// waiter, the Go plugin's ignore-term) end with the test that started
// them: a test binary killed mid-run (a -timeout, a CI runner giving up)
// leaves none looping on the machine. A test binary is run holding them
// and killed; each must then exit. stubborn.sh whose lifeline file names
// another process (the test, where fledge runs it in a terminal) ends with
// that process instead.
func TestStubbornPluginsDieWithTheTest(t *testing.T) {
	t.Parallel()
	t.Run("its parent is killed", func(t *testing.T) {
		t.Parallel()
		holder, pids := hold(t, "all")
		if len(pids) != 3 {
			t.Fatalf("holding %v, want three plugins", pids)
		}
		if err := holder.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		holder.Wait()
		for _, pid := range pids {
			testutil.Eventually(t, "plugin "+strconv.Itoa(pid)+" to end with the test binary that started it", func() bool { return !running(pid) })
		}
	})
	t.Run("its lifeline ends", func(t *testing.T) {
		t.Parallel()
		life := exec.Command("cat") // ends when this test closes its stdin, or ends
		end, err := life.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := life.Start(); err != nil {
			t.Fatal(err)
		}
		holder, pids := hold(t, strconv.Itoa(life.Process.Pid))
		if len(pids) != 1 {
			t.Fatalf("holding %v, want stubborn.sh alone", pids)
		}
		end.Close()
		life.Wait()
		testutil.Eventually(t, "stubborn.sh to end with its lifeline", func() bool { return !running(pids[0]) })
		if !running(holder.Process.Pid) {
			t.Error("the holding test binary ended too: the lifeline is not what ended stubborn.sh")
		}
		holder.Process.Kill()
		holder.Wait()
	})
}

// hold runs TestHoldStubbornPlugins in a test binary of its own, with
// envHold set to mode, and returns it and its plugins' pids once they have
// started. Whatever of it outlives the test is killed.
func hold(t *testing.T, mode string) (*exec.Cmd, []int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldStubbornPlugins$", "-test.count=1")
	cmd.Env = append(os.Environ(), envHold+"="+mode, "TMPDIR="+t.TempDir())
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe() // closed at the end: ends a holder still there
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	t.Cleanup(func() {
		stdin.Close()
		for _, pid := range pids {
			if running(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	held := make(chan string, 2) // the line, then "" when stdout ends
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if pids, ok := strings.CutPrefix(sc.Text(), "holding "); ok {
				held <- pids
			}
		}
		held <- ""
	}()
	line := testutil.Receive(t, "the holding test binary to start its plugins", held)
	if line == "" {
		cmd.Wait()
		t.Fatal("the holding test binary ended without starting its plugins")
	}
	for _, f := range strings.Fields(line) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return cmd, pids
}

// running reports whether pid is a process that has not exited (an orphan
// that exited may wait, a zombie, for a PID 1 that does not reap).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// TestHoldStubbornPlugins, in a test binary that
// TestStubbornPluginsDieWithTheTest starts, runs the plugins that ignore
// what fledge sends them (envHold "all"), or stubborn.sh alone with a
// lifeline file naming the pid envHold holds, and says "holding <pids>"
// once they have started; then it waits for its stdin to end, or to be
// killed. Elsewhere it does nothing.
func TestHoldStubbornPlugins(t *testing.T) {
	mode := os.Getenv(envHold)
	if mode == "" {
		return
	}
	e := newEnv(t)
	dir := installStubborn(e)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{})
	reqs := []Request{{Command: "stub", Args: []string{"none"}}, {Command: "nat"}, {Command: "go", Args: []string{"ignore-term"}}}
	started := func(out string) bool { return strings.Count(out, "ready") == 2 && strings.Contains(out, "stubborn") }
	if mode != "all" {
		writeFile(t, filepath.Join(dir, "lifeline"), mode+"\n", 0o644)
		reqs = reqs[:1]
		started = func(out string) bool { return strings.Contains(out, "ready") }
	}
	r := e.patient()
	for _, req := range reqs {
		go r.Run(context.Background(), req)
	}
	// Each says so on stdout once it has started (and set its traps).
	testutil.Eventually(t, "the plugins to start", func() bool { return started(e.stdout.String()) })
	var pids []string
	for _, p := range children(t, e.paths.PluginsDir()) {
		pids = append(pids, strconv.Itoa(p))
	}
	os.Stdout.WriteString("holding " + strings.Join(pids, " ") + "\n")
	io.Copy(io.Discard, os.Stdin)
}

// children are this process's child processes running a program under
// dir.
func children(t *testing.T, dir string) []int {
	t.Helper()
	out, err := exec.Command("pgrep", "-P", strconv.Itoa(os.Getpid())).Output()
	if err != nil {
		t.Fatalf("pgrep -P: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		if cmdline, _ := os.ReadFile("/proc/" + f + "/cmdline"); strings.Contains(string(cmdline), dir+"/") {
			pids = append(pids, pid)
		}
	}
	return pids
}
