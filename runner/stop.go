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
// Headless (fledge mcp), no terminal reaches a plugin: each runs in a
// process group of its own, and a stopped plugin without the protocol gets
// SIGINT from fledge at once, then SIGTERM and SIGKILL as a protocol
// plugin does.
//
// A plugin in a group of its own is stopped whole: once its leader has
// exited, what it left running in the group (a background job, which a
// shell starts ignoring SIGINT) gets the rest of the schedule.
//
// Either way a second Ctrl+C (Request.Kill) sends SIGKILL at once, to the
// group.

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
	case r.Headless:
		return schedule{0, r.Timeouts.Term, r.Timeouts.Kill}
	}
	return never
}

// stop signals p on sched until it exits, and what it left running in its
// group with it; kill skips to SIGKILL.
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
		if !await(p, kill, st.at-time.Since(start)) {
			return
		}
		st.send()
	}
	select {
	case <-p.wait():
	case <-kill:
		p.kill()
	}
}

// groupPoll is how often a stopped plugin's group is looked at once its
// leader has exited (a group sends no word when it empties).
const groupPoll = 20 * time.Millisecond

// await waits up to d for p, and what it left running in its group, to be
// gone; it reports whether they are still there when d is up. Closing kill
// sends SIGKILL and ends the wait.
func await(p child, kill <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.wait():
	case <-kill:
		p.kill()
		return false
	case <-t.C:
		return true
	}
	tick := time.NewTicker(groupPoll)
	defer tick.Stop()
	for p.remains() {
		select {
		case <-kill:
			p.kill()
			return false
		case <-t.C:
			return true
		case <-tick.C:
		}
	}
	return false
}
