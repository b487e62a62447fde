package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/runner"
)

// recordedLine records what a fetch asks the progress line to show.
type recordedLine struct {
	mu    sync.Mutex
	shown []runner.Progress
}

func (r *recordedLine) Progress(p runner.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shown = append(r.shown, p)
}

func (r *recordedLine) snapshot() []runner.Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]runner.Progress(nil), r.shown...)
}

// A fetch that takes a while shows a spinner with the seconds and the
// remote's last progress message, sanitised, and clears it when it ends;
// a quick one shows nothing.
func TestFetchProgress(t *testing.T) {
	t.Parallel()
	line := &recordedLine{}
	p := newFetchProgress(line)
	p.delay, p.tick = 0, 10*time.Millisecond

	p.TransferStarted("u")
	p.Write([]byte("Counting objects:  10% (1/10)\rCounting objects: 50% (5/10)\x1b]0;pwned\x07\r"))
	deadline := time.Now().Add(testutil.WaitLimit)
	for {
		s := line.snapshot()
		if len(s) > 0 && strings.HasSuffix(s[len(s)-1].Message, ": Counting objects: 50% (5/10)") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spinner never showed the remote's progress: %+v", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.TransferEnded("u")
	s := line.snapshot()
	if last := s[len(s)-1]; !last.Done {
		t.Fatalf("the line was not cleared at the end: %+v", s)
	}
	for _, x := range s {
		if strings.ContainsAny(x.Message, "\x1b\x07\r\n") || x.Determinate {
			t.Errorf("drew %q", x.Message)
		}
		if !x.Done && !strings.HasPrefix(x.Message, "fetching, ") {
			t.Errorf("drew %q", x.Message)
		}
	}
	// Nothing more once it ended, even if the remote still talks.
	n := len(s)
	p.Write([]byte("Total 10 (delta 0)\n"))
	time.Sleep(30 * time.Millisecond)
	if got := line.snapshot(); len(got) != n {
		t.Errorf("drawn after the end: %+v", got[n:])
	}

	quick := &recordedLine{}
	q := newFetchProgress(quick)
	q.delay = time.Hour
	q.TransferStarted("u")
	q.Write([]byte("Counting objects: 1\n"))
	q.TransferEnded("u")
	if got := quick.snapshot(); len(got) != 0 {
		t.Errorf("a quick fetch drew %+v", got)
	}
}

// Off a terminal, and under --json, install shows no progress at all.
func TestInstallDrawsNothingOffTerminal(t *testing.T) {
	t.Parallel()
	var errOut bytes.Buffer
	for _, s := range []*IOStreams{
		{ErrOut: &errOut, Getenv: func(string) string { return "" }},
		{ErrOut: &errOut, ErrTTY: true, Plain: true, Getenv: func(string) string { return "" }},
		{ErrOut: &errOut, ErrTTY: true, Getenv: func(k string) string { return map[string]string{"TERM": "dumb"}[k] }},
	} {
		if s.ShowProgress() {
			t.Errorf("progress shown for %+v", s)
		}
	}
	if !(&IOStreams{ErrTTY: true, Getenv: func(string) string { return "" }}).ShowProgress() {
		t.Error("no progress on a terminal")
	}
}
