//go:build unix

package runner

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
)

// nativeWaiter is a plugin without the protocol: it records the signals
// fledge sends it and exits 3 once $FLEDGE_PLUGIN_DIR/go exists (or 4 once
// its parent, the test, has gone: a killed test leaves no orphan; /proc
// where there is one, as a confined plugin may not signal outside itself).
const nativeWaiter = `#!/bin/sh
d=$FLEDGE_PLUGIN_DIR
trap 'echo INT >> "$d/signals"; exit 5' INT
trap 'echo TERM >> "$d/signals"' TERM
alive() { if [ -d /proc/self ]; then [ -d "/proc/$1" ]; else kill -0 "$1" 2>/dev/null; fi; }
life=$PPID
echo ready
while [ ! -f "$d/go" ]; do alive "$life" || exit 4; sleep 0.05; done
exit 3
`

func installStubborn(e *testEnv) string {
	e.installScript("fledge-plugin-stub", "stub", "stubborn.sh", "fledge-v1", manifest.Capabilities{})
	e.install(plugin{name: "fledge-plugin-nat", commands: map[string]string{"nat": "bin/nat"},
		files: map[string]string{"bin/nat": nativeWaiter}})
	return e.paths.PluginDir("fledge-plugin-stub")
}

func readSignals(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "signals"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

const cancelLine = `{"type":"cancel","reason":"user_interrupt"}`

// A protocol plugin that ignores cancel still gets the SIGINT that Ctrl+C
// would have sent it, after the cancel; the run is interrupted whatever it
// exits with.
func TestCtrlCInterruptsAPluginIgnoringCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := installStubborn(e)
	// SIGINT ends it; SIGTERM and SIGKILL, an hour away, cannot overtake
	// a trap a busy machine runs late.
	r := e.patient()
	r.Timeouts.Interrupt = 100 * time.Millisecond
	res, err := interruptAfter(t, e, r, Request{Command: "stub", Args: []string{"int"}}, "ready")
	if CodeOf(err) != CodeInterrupted || res.ExitCode != 7 || res.Signaled {
		t.Fatalf("err %v, exit %d (signaled %v): want interrupted, the plugin's own exit 7", err, res.ExitCode, res.Signaled)
	}
	if got := readSignals(t, dir); got != "INT "+cancelLine+"\n" {
		t.Errorf("signals = %q, want SIGINT alone, after the cancel", got)
	}
}

// One that ignores SIGINT and SIGTERM too gets each on schedule, in turn,
// to its process group, and only SIGKILL ends it (the schedule's own
// SIGKILL is TestStubbornPluginIsKilled's).
func TestCtrlCKillsAPluginIgnoringEverything(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := installStubborn(e)
	// The shell runs each trap only once its foreground sleep has died,
	// and a busy machine may take seconds to get to it: the schedule's
	// SIGKILL is an hour away, and the test's kill (Request.Kill) follows
	// the TERM trap's line instead.
	r := e.runner()
	r.Timeouts.Term, r.Timeouts.Kill = 2*time.Second, time.Hour
	res, err := interruptAfter(t, e, r, Request{Command: "stub", Args: []string{"none"}, Kill: killOn(t, dir, "TERM\n")}, "ready")
	if CodeOf(err) != CodeInterrupted || res.ExitCode != 128+9 || !res.Signaled {
		t.Fatalf("err %v, exit %d (signaled %v): want interrupted by SIGKILL", err, res.ExitCode, res.Signaled)
	}
	if got := readSignals(t, dir); got != "INT "+cancelLine+"\nTERM\n" {
		t.Errorf("signals = %q, want SIGINT then SIGTERM before SIGKILL", got)
	}
}

// A second Ctrl+C (Request.Kill) kills at once: with every other signal an
// hour away, nothing else could end the run, and nothing else was sent.
func TestSecondCtrlCKillsAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, cmd   string
		cancelFirst bool
	}{
		{"protocol after Ctrl+C", "stub", true},
		{"protocol, kill alone", "stub", false},
		{"native after Ctrl+C", "nat", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			installStubborn(e)
			r := e.runner()
			r.Timeouts.Interrupt, r.Timeouts.Term, r.Timeouts.Kill = time.Hour, time.Hour, time.Hour
			kill := make(chan struct{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				for !strings.Contains(e.stdout.String(), "ready") {
					select {
					case <-t.Context().Done():
						return
					case <-time.After(10 * time.Millisecond):
					}
				}
				if tc.cancelFirst {
					cancel()
				}
				close(kill)
			}()
			res, err := runBounded(t, r, ctx, Request{Command: tc.cmd, Args: []string{"none"}, Kill: kill})
			if CodeOf(err) != CodeInterrupted || res.ExitCode != 128+9 || !res.Signaled {
				t.Fatalf("err %v, exit %d (signaled %v): want interrupted by SIGKILL", err, res.ExitCode, res.Signaled)
			}
			for _, name := range []string{"fledge-plugin-stub", "fledge-plugin-nat"} {
				if got := readSignals(t, e.paths.PluginDir(name)); got != "" {
					t.Errorf("%s got %q before the kill", name, got)
				}
			}
		})
	}
}

// A plugin without the protocol got the terminal's Ctrl+C itself: fledge
// sends it nothing, and when it exits on its own the run ends as it chose.
// It is told to exit once the whole Ctrl+C schedule (the test runner's:
// SIGKILL at 600 ms) has passed since the interrupt: had fledge sent a
// signal, the plugin would have recorded it by then or been killed.
func TestCtrlCLeavesANativePluginAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	installStubborn(e)
	dir := e.paths.PluginDir("fledge-plugin-nat")
	r := e.runner()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The goroutine ends with the test (a run that failed never says
	// "ready") and never calls t: FailNow is the test goroutine's, and
	// after the test a failure there panics the whole binary.
	go func() {
		for !strings.Contains(e.stdout.String(), "ready") {
			select {
			case <-t.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		cancel()
		select {
		case <-t.Context().Done():
			return
		case <-time.After(2 * r.Timeouts.Kill):
		}
		// Should this fail, the run does not end: runBounded says so.
		_ = os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	}()
	res, err := runBounded(t, r, ctx, Request{Command: "nat"})
	if err != nil || res.ExitCode != 3 || res.Signaled {
		t.Fatalf("err %v, exit %d (signaled %v): want the plugin's own exit 3", err, res.ExitCode, res.Signaled)
	}
	if got := readSignals(t, dir); got != "" {
		t.Errorf("fledge signalled the plugin: %q", got)
	}
}

// killOn returns a kill channel (Request.Kill) closed once the plugin in
// dir has recorded want in its signals file. (The run's own bound,
// runBounded's, ends a run whose plugin never does.)
func killOn(t *testing.T, dir, want string) chan struct{} {
	kill := make(chan struct{})
	go func() {
		for !strings.Contains(readSignals(t, dir), want) {
			select {
			case <-t.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		close(kill)
	}()
	return kill
}

// --timeout: cancel (reason timeout), SIGINT, SIGTERM, SIGKILL on the
// timeout's schedule, and the error is timeout whatever the plugin did.
// The timeout is made to expire once the plugin has set its traps (it
// says "ready"): Request.Timeout's own expiry is TestRunTimeout's. The
// signals are seconds apart, for a shell that runs its traps late on a
// busy machine, and the last is the test's kill once the plugin has
// recorded SIGTERM; which signal each schedule sends when is
// TestStopSchedule's.
func TestTimeoutStopsOnSchedule(t *testing.T) {
	t.Parallel()
	timeoutRunner := func(e *testEnv) *Runner {
		r := e.runner()
		r.Timeouts.Interrupt, r.Timeouts.TimeoutTerm, r.Timeouts.TimeoutKill = 100*time.Millisecond, 2*time.Second, time.Hour
		return r
	}
	e := newEnv(t)
	dir := installStubborn(e)
	res, err := stopAfter(t, e, timeoutRunner(e), Request{Command: "stub", Args: []string{"none"}, Kill: killOn(t, dir, "TERM\n")}, "ready", errRunTimeout)
	if CodeOf(err) != CodeTimeout || res.ExitCode != 128+9 || !res.Signaled {
		t.Fatalf("err %v, exit %d (signaled %v): want timeout and SIGKILL", err, res.ExitCode, res.Signaled)
	}
	if got, want := readSignals(t, dir), "INT {\"type\":\"cancel\",\"reason\":\"timeout\"}\nTERM\n"; got != want {
		t.Errorf("signals = %q, want %q", got, want)
	}

	// SIGTERM ends this one.
	e2 := newEnv(t)
	installStubborn(e2)
	res, err = stopAfter(t, e2, timeoutRunner(e2), Request{Command: "stub", Args: []string{"term"}}, "ready", errRunTimeout)
	if CodeOf(err) != CodeTimeout || res.ExitCode != 8 {
		t.Fatalf("err %v, exit %d: want timeout, the plugin's exit 8", err, res.ExitCode)
	}

	// A plugin without the protocol gets SIGINT at once: nobody pressed
	// Ctrl+C for it.
	e3 := newEnv(t)
	installStubborn(e3)
	res, err = stopAfter(t, e3, timeoutRunner(e3), Request{Command: "nat"}, "ready", errRunTimeout)
	if CodeOf(err) != CodeTimeout || res.ExitCode != 5 {
		t.Fatalf("native: err %v, exit %d: want timeout, the plugin's exit 5", err, res.ExitCode)
	}
	if got := readSignals(t, e3.paths.PluginDir("fledge-plugin-nat")); got != "INT\n" {
		t.Errorf("native: signals = %q", got)
	}
}

// leaver is a plugin without the protocol that leaves a background job
// (which sh starts ignoring SIGINT) running in its group.
const leaver = `#!/bin/sh
sleep 300 &
echo $! > "$FLEDGE_PLUGIN_DIR/bg"
echo ready
wait
`

// Headless, a plugin without the protocol runs in a group of its own and
// an interrupt stops the whole group: SIGINT ends the shell, and the job
// it left gets the rest of the schedule.
func TestHeadlessStopsTheWholeGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(plugin{name: "fledge-plugin-leaver", commands: map[string]string{"leave": "bin/run"},
		files: map[string]string{"bin/run": leaver}})
	r := e.runner()
	r.Headless = true
	res, err := interruptAfter(t, e, r, Request{Command: "leave"}, "ready")
	if CodeOf(err) != CodeInterrupted || !res.Signaled {
		t.Fatalf("err %v, exit %d (signaled %v): want interrupted by a signal", err, res.ExitCode, res.Signaled)
	}
	b, err := os.ReadFile(filepath.Join(e.paths.PluginDir("fledge-plugin-leaver"), "bg"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// Run returned only once the group was gone (a zombie waiting for
	// init to reap it counts as gone).
	if err := syscall.Kill(pid, 0); err == nil {
		if st, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat")); !strings.Contains(string(st), ") Z") {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the background job %d outlived the run", pid)
		}
	}
}

// Which signal each stop schedule sends when: a protocol plugin gets the
// cancel first and SIGINT later, one without the protocol SIGINT at once
// on a timeout and nothing on the user's Ctrl+C (the terminal sent it).
func TestStopSchedule(t *testing.T) {
	t.Parallel()
	r := &Runner{Timeouts: Timeouts{Interrupt: 1, Term: 2, Kill: 3, TimeoutTerm: 4, TimeoutKill: 5}}
	timedOut, cancelTimeout := context.WithCancelCause(context.Background())
	cancelTimeout(errRunTimeout)
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		protocol bool
		want     schedule
	}{
		{"timeout, protocol", timedOut, true, schedule{1, 4, 5}},
		{"timeout, native", timedOut, false, schedule{0, 4, 5}},
		{"Ctrl+C, protocol", interrupted, true, schedule{1, 2, 3}},
		{"Ctrl+C, native", interrupted, false, never},
	} {
		if got := r.stopSchedule(tc.ctx, tc.protocol); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// Headless, nobody's Ctrl+C reaches the plugin: fledge sends SIGINT
	// at once, then the Ctrl+C schedule's SIGTERM and SIGKILL.
	r.Headless = true
	if got, want := r.stopSchedule(interrupted, false), (schedule{0, 2, 3}); got != want {
		t.Errorf("Ctrl+C, native, headless: %+v, want %+v", got, want)
	}
}
