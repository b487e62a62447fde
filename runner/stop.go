package runner

import (
	"context"
	"errors"
	"time"
)

// How a run is stopped.
//
// A protocol plugin runs in a process group of its own, so the terminal's
// Ctrl+C reaches fledge alone. fledge sends it the protocol's cancel at
// once and, if it is still running Timeouts.Interrupt later, SIGINT: what
// the terminal would have sent it, had it run on its own. A plugin that
// handles cancel gets that long to finish cleanly; one that ignores cancel
// still stops as Ctrl+C stops any program. SIGTERM and SIGKILL follow.
//
// A plugin without the protocol shares fledge's process group and
// terminal: Ctrl+C reaches it directly, and what it does then is its own
// business, as when it runs on its own (a REPL carries on). fledge sends it
// nothing more; on a timeout, nobody pressed Ctrl+C, so fledge sends the
// SIGINT itself.
//
// Either way a second Ctrl+C (Request.Kill) sends SIGKILL at once.

// schedule is when a plugin still running gets each signal, counted from
// the moment its run was stopped. A negative time means never.
type schedule struct {
	interrupt, term, kill time.Duration
}

// never is the schedule of a plugin left to handle the user's Ctrl+C.
var never = schedule{-1, -1, -1}

// stopSchedule is the schedule for a run whose context ended: Ctrl+C or
// Request.Timeout.
func (r *Runner) stopSchedule(ctx context.Context, protocol bool) schedule {
	timedOut := errors.Is(context.Cause(ctx), errRunTimeout)
	switch {
	case timedOut && protocol:
		return schedule{r.Timeouts.Interrupt, r.Timeouts.TimeoutTerm, r.Timeouts.TimeoutKill}
	case timedOut:
		return schedule{0, r.Timeouts.TimeoutTerm, r.Timeouts.TimeoutKill}
	case protocol:
		return schedule{r.Timeouts.Interrupt, r.Timeouts.Term, r.Timeouts.Kill}
	}
	return never
}

// stop signals p on sched until it exits; kill skips to SIGKILL.
func (r *Runner) stop(p child, kill <-chan struct{}, sched schedule) {
	start := time.Now()
	steps := []struct {
		at   time.Duration
		send func()
	}{{sched.interrupt, p.interrupt}, {sched.term, p.terminate}, {sched.kill, p.kill}}
	for _, st := range steps {
		if st.at < 0 {
			continue
		}
		t := time.NewTimer(st.at - time.Since(start))
		select {
		case <-p.wait():
			t.Stop()
			return
		case <-kill:
			t.Stop()
			p.kill()
			return
		case <-t.C:
			st.send()
		}
	}
	select {
	case <-p.wait():
	case <-kill:
		p.kill()
	}
}
