package runner

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowWriter is a consumer slower than the plugin (a terminal, ssh, a
// pipe into another program): each write takes a while.
type slowWriter struct {
	mu    sync.Mutex
	delay time.Duration
	buf   strings.Builder
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(w.delay)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *slowWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// seqText is what `seq 1 n` prints.
func seqText(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// firstDiff describes where got stops matching want.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("%d of %d bytes, first difference at byte %d", len(got), len(want), i)
}

// TestOutputWrittenAtExitIsKept: everything a plugin writes just before it
// exits reaches fledge's output, byte for byte, however slowly fledge's
// own output is consumed and however short the grace after exit: the
// grace bounds waiting for a descendant holding the pipe, never the
// reading of what is already in it. Each case runs a real plugin that
// ends on a burst of megabytes (through the protocol, through plain stdio
// into a writer that is not a file, and on the stderr of a protocol
// plugin), many times over.
func TestOutputWrittenAtExitIsKept(t *testing.T) {
	t.Parallel()
	const lines = 250000 // `seq 1 250000` is 1.6 MB
	want := seqText(lines)
	var msgs strings.Builder
	for _, l := range strings.SplitAfter(want, "\n") {
		if l != "" {
			fmt.Fprintf(&msgs, "{\"type\":\"output\",\"text\":\"%s\\n\"}\n", strings.TrimSuffix(l, "\n"))
		}
	}
	// The plugin execs cat on a file: the burst comes as fast as the pipe
	// takes it, and the pipe is full when the plugin exits.
	cases := []struct {
		name, protocol, script, data string
		stderr                       bool
	}{
		{"fledge-v1", "fledge-v1", "#!/bin/sh\nread -r init\nexec cat \"$FLEDGE_PLUGIN_DIR/data\"\n", msgs.String(), false},
		{"plain stdio", "", "#!/bin/sh\nexec cat \"$FLEDGE_PLUGIN_DIR/data\"\n", want, false},
		{"fledge-v1 stderr", "fledge-v1", "#!/bin/sh\nread -r init\nexec cat \"$FLEDGE_PLUGIN_DIR/data\" >&2\n", want, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.install(plugin{name: "burst", protocol: c.protocol, commands: map[string]string{"burst": "bin/burst"},
				files: map[string]string{"bin/burst": c.script, "data": c.data}})
			lost := 0
			const rounds = 12
			for round := range rounds {
				// A third of the rounds read as fast as they can, the rest
				// into a consumer slower than the plugin.
				delay := []time.Duration{0, 2 * time.Millisecond, 20 * time.Millisecond}[round%3]
				w := &slowWriter{delay: delay}
				r := e.patient()
				r.Timeouts.ExitGrace = 5 * time.Millisecond
				if c.stderr {
					r.Stderr = w
				} else {
					r.Stdout = w
				}
				res, err := e.runWith(r, Request{Command: "burst"})
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("round %d: err %v exit %d", round, err, res.ExitCode)
				}
				if got := w.String(); got != want {
					lost++
					t.Errorf("round %d (consumer delay %v): got %s", round, delay, firstDiff(got, want))
				}
			}
			if lost > 0 {
				t.Errorf("%d of %d rounds lost output written before the plugin exited", lost, rounds)
			}
		})
	}
}

// TestDescendantWritingForeverDoesNotHang: a plugin that leaves behind a
// process writing to its stdout without end still ends the run, soon
// after the plugin itself, with what the plugin wrote kept.
func TestDescendantWritingForeverDoesNotHang(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"fledge-v1", ""} {
		t.Run("protocol="+proto, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			script := "#!/bin/sh\nprintf '%s\\n' '{\"type\":\"output\",\"text\":\"parent done\\n\"}'\n(yes '{}' &)\n"
			if proto == "" {
				script = "#!/bin/sh\necho 'parent done'\n(yes '{}' &)\n"
			}
			e.install(plugin{name: "yes", protocol: proto, commands: map[string]string{"yes": "bin/yes"},
				files: map[string]string{"bin/yes": script}})
			r := e.patient()
			r.Timeouts.ExitGrace = 20 * time.Millisecond
			w := &slowWriter{}
			r.Stdout = w
			res, err := e.runWith(r, Request{Command: "yes"}) // bounded by testutil.WaitLimit
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("err %v exit %d", err, res.ExitCode)
			}
			if !strings.Contains(w.String(), "parent done\n") {
				t.Errorf("the plugin's own line is missing from %d bytes of output", len(w.String()))
			}
		})
	}
}
