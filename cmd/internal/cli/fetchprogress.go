package cli

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// fetchProgressDelay is how long a transfer runs before its spinner shows:
// a quick fetch (most local ones) draws nothing.
const fetchProgressDelay = 250 * time.Millisecond

// progressLine is the one-line display a spinner is drawn on (the run UI's
// progress line, see runUI.Progress).
type progressLine interface{ Progress(runner.Progress) }

// fetchProgress shows on a terminal that a fetch is under way, on the
// progress line below "Fetching …": a spinner, the seconds taken and the
// remote's last progress message (objects counted, compressed; a file://
// remote sends none). It is the gitfetch progress writer and Tracker; the
// line is cleared when the transfer ends.
type fetchProgress struct {
	line  progressLine
	delay time.Duration
	tick  time.Duration

	mu      sync.Mutex
	active  int
	started time.Time
	message string // the remote's last progress message, sanitised
	shown   bool
	stop    chan struct{}
}

var _ gitfetch.Tracker = (*fetchProgress)(nil)

func newFetchProgress(line progressLine) *fetchProgress {
	return &fetchProgress{line: line, delay: fetchProgressDelay, tick: time.Second}
}

// Write takes the remote's sideband progress. Progress is rendered
// chatter, not content: what a terminal would obey is dropped, not shown
// escaped, and only the last update of a line counts.
func (p *fetchProgress) Write(b []byte) (int, error) {
	var last string
	for _, part := range strings.FieldsFunc(string(b), func(r rune) bool { return r == '\r' || r == '\n' }) {
		if s := strings.TrimSpace(termsafe.Line(part)); s != "" {
			last = s
		}
	}
	if last != "" {
		p.mu.Lock()
		p.message = string([]rune(last)[:min(len([]rune(last)), 60)])
		p.drawLocked()
		p.mu.Unlock()
	}
	return len(b), nil
}

// TransferStarted implements gitfetch.Tracker.
func (p *fetchProgress) TransferStarted(string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active++
	if p.active > 1 {
		return
	}
	p.started, p.message = time.Now(), ""
	p.stop = make(chan struct{})
	go p.run(p.stop)
}

// TransferEnded implements gitfetch.Tracker.
func (p *fetchProgress) TransferEnded(string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.active == 0 {
		return
	}
	p.active--
	if p.active > 0 {
		return
	}
	close(p.stop)
	if p.shown {
		p.line.Progress(runner.Progress{Done: true})
		p.shown = false
	}
}

// run shows the spinner once the transfer has taken delay, and updates
// the seconds every tick, until stop.
func (p *fetchProgress) run(stop chan struct{}) {
	select {
	case <-stop:
		return
	case <-time.After(p.delay):
	}
	t := time.NewTicker(p.tick)
	defer t.Stop()
	for {
		p.mu.Lock()
		select {
		case <-stop:
			p.mu.Unlock()
			return
		default:
		}
		p.shown = true
		p.drawLocked()
		p.mu.Unlock()
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

func (p *fetchProgress) drawLocked() {
	if !p.shown {
		return
	}
	msg := fmt.Sprintf("fetching, %ds", int(time.Since(p.started).Seconds()))
	if p.message != "" {
		msg += ": " + p.message
	}
	p.line.Progress(runner.Progress{Message: msg})
}
