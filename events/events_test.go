package events

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary be an appender process: with
// EVENTS_APPEND=path:n:maxsize:keep it appends n events to path, as
// process $EVENTS_ID (n < 0: until killed), and exits.
func TestMain(m *testing.M) {
	if spec := os.Getenv("EVENTS_APPEND"); spec != "" {
		parts := strings.Split(spec, ":")
		n, _ := strconv.Atoi(parts[1])
		max, _ := strconv.ParseInt(parts[2], 10, 64)
		keep, _ := strconv.Atoi(parts[3])
		l := &Log{Path: parts[0], MaxSize: max, Keep: keep}
		id := os.Getenv("EVENTS_ID")
		for i := 0; n < 0 || i < n; i++ {
			code := i
			// A denial long enough that lines are several kB: a torn or
			// interleaved write would show.
			e := Event{Kind: KindRun, Plugin: "p" + id, Command: strconv.Itoa(i), Outcome: OutcomeOK, ExitCode: &code,
				Actor: Actor{Kind: "user", User: "u"}, Denials: []Denial{{Item: "exec", Reason: strings.Repeat(id, 2000)}}}
			if err := l.Append(e); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func appender(ctx context.Context, t *testing.T, path string, id, n int, max int64, keep int) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("EVENTS_APPEND=%s:%d:%d:%d", path, n, max, keep), fmt.Sprintf("EVENTS_ID=%d", id))
	cmd.Stderr = os.Stderr
	return cmd
}

// readAll reads every file of the trail and fails on any line that is not
// one whole event; it returns the events.
func readAll(t *testing.T, l *Log) []Event {
	t.Helper()
	var out []Event
	for _, p := range append([]string{l.Path}, func() []string {
		var r []string
		for n := 1; n <= l.keep(); n++ {
			r = append(r, l.Rotated(n))
		}
		return r
	}()...) {
		data, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			t.Errorf("%s does not end with a newline: a torn last line", p)
		}
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(nil, MaxLine+1)
		for sc.Scan() {
			var e Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("%s: a line that is not one event (%v): %.200q", p, err, sc.Text())
			}
			if want := strings.TrimPrefix(e.Plugin, "p"); e.Denials[0].Reason != strings.Repeat(want, 2000) {
				t.Fatalf("%s: an event whose text mixes two writers: %s", p, e.Plugin)
			}
			out = append(out, e)
		}
	}
	return out
}

// Fifty processes appending at once, across rotations: every event lands
// whole, once, and the trail stays within its bounds.
func TestConcurrentProcessesLoseAndTearNothing(t *testing.T) {
	const procs, each = 50, 40
	l := &Log{Path: filepath.Join(t.TempDir(), "events.jsonl"), MaxSize: 256 << 10, Keep: 64}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmds []*exec.Cmd
	for i := range procs {
		c := appender(ctx, t, l.Path, i, each, l.MaxSize, l.Keep)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("appender: %v (ctx %v)", err, ctx.Err())
		}
	}
	got := readAll(t, l)
	seen := map[string]bool{}
	for _, e := range got {
		k := e.Plugin + " " + e.Command
		if seen[k] {
			t.Fatalf("event %s is there twice", k)
		}
		seen[k] = true
	}
	if len(got) != procs*each {
		t.Fatalf("%d events, want %d", len(got), procs*each)
	}
	if _, err := os.Stat(l.Rotated(2)); err != nil {
		t.Fatalf("the trail was never rotated past .1 (%v): the test does not exercise rotation", err)
	}
	for n := 0; n <= l.Keep; n++ {
		p := l.Path
		if n > 0 {
			p = l.Rotated(n)
		}
		if fi, err := os.Stat(p); err == nil && fi.Size() > l.MaxSize+MaxLine*procs {
			t.Errorf("%s is %d bytes, over its bound", p, fi.Size())
		}
	}
	evs, bad, err := l.Read(Filter{Plugin: "p7"})
	if err != nil || bad != 0 || len(evs) != each {
		t.Errorf("Read --plugin p7: %d events, %d unreadable, %v", len(evs), bad, err)
	}
}

// Keep bounds how many rotated copies there are: the oldest go.
func TestRotationKeepsBound(t *testing.T) {
	l := &Log{Path: filepath.Join(t.TempDir(), "events.jsonl"), MaxSize: 1 << 10, Keep: 2}
	for i := range 100 {
		if err := l.Append(Event{Kind: KindRun, Plugin: "p", Command: strconv.Itoa(i), Denials: []Denial{{Item: "x", Reason: strings.Repeat("y", 200)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(l.Rotated(3)); err == nil {
		t.Error("a third rotated copy is kept with Keep 2")
	}
	evs, _, _ := l.Read(Filter{})
	if len(evs) == 0 || len(evs) >= 100 || evs[len(evs)-1].Command != "99" {
		t.Errorf("after rotation: %d events, last %+v", len(evs), evs[len(evs)-1])
	}
	for i := 1; i < len(evs); i++ {
		a, _ := strconv.Atoi(evs[i-1].Command)
		b, _ := strconv.Atoi(evs[i].Command)
		if b != a+1 {
			t.Fatalf("events out of order or missing in the middle: %s then %s", evs[i-1].Command, evs[i].Command)
		}
	}
}

// Processes killed with SIGKILL in the middle of appending leave a trail
// that reads: each can cut at most the line it was writing (Linux stops a
// write between pages for a fatal signal), which spoils that line and the
// one written after it, and no more.
func TestKilledMidAppendLeavesWholeLines(t *testing.T) {
	l := &Log{Path: filepath.Join(t.TempDir(), "events.jsonl"), MaxSize: 64 << 20, Keep: 2}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var cmds []*exec.Cmd
	for i := range 4 {
		c := appender(ctx, t, l.Path, i, -1, l.MaxSize, l.Keep)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	// Wait (bounded) until each has written, so the kills land mid-stream.
	for {
		if fi, err := os.Stat(l.Path); err == nil && fi.Size() > 2<<20 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the appenders wrote under 2 MiB in a minute")
		case <-time.After(5 * time.Millisecond):
		}
	}
	for _, c := range cmds {
		c.Process.Signal(syscall.SIGKILL)
	}
	for _, c := range cmds {
		c.Wait()
	}
	evs, bad, err := l.Read(Filter{})
	if err != nil || bad > len(cmds) || len(evs) == 0 {
		t.Errorf("Read after kill -9 of %d appenders: %d events, %d unreadable (at most one each), %v", len(cmds), len(evs), bad, err)
	}
}

// A damaged trail (a line no writer makes, a torn tail) is read around:
// what cannot be decoded is counted, not fatal.
func TestReadCountsDamage(t *testing.T) {
	l := &Log{Path: filepath.Join(t.TempDir(), "events.jsonl")}
	l.Append(Event{Kind: KindRun, Plugin: "a", Command: "1"})
	os.WriteFile(l.Rotated(1), []byte(`{"kind":"run","plugin":"old","command":"0"}`+"\n"+strings.Repeat("x", MaxLine+10)+"\n"), 0o644)
	f, _ := os.OpenFile(l.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"run","plu`)
	f.Close()
	evs, bad, err := l.Read(Filter{})
	if err != nil || len(evs) != 2 || bad != 2 || evs[0].Plugin != "old" || evs[1].Plugin != "a" {
		t.Errorf("Read: %+v, %d unreadable, %v", evs, bad, err)
	}
}
