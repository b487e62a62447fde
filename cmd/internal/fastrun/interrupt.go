package fastrun

import (
	"context"
	"os"
	"os/signal"
	"sync"
)

// Interrupts counts the user's Ctrl+C (SIGINT). The first cancels the
// context every command runs under; the second closes kill, which ends a
// plugin's run at once (runner.Request.Kill). After the second fledge
// stops catching SIGINT, so a third ends fledge itself, should anything
// still hold it.
//
// A question abandoned with Ctrl+C counts as the first: the terminal was
// in raw mode, so that Ctrl+C sent no signal. (A SIGINT sent from outside
// while a question is on screen is seen both ways, and may count twice.)
type Interrupts struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
	kill   chan struct{}
	stop   func()
}

// NewInterrupts returns a count of no interrupts.
func NewInterrupts() *Interrupts { return &Interrupts{kill: make(chan struct{})} }

// Notify returns a context that ends at the first interrupt, and starts
// catching SIGINT until stop.
func (i *Interrupts) Notify(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sig := make(chan os.Signal, 2)
	done := make(chan struct{})
	var once sync.Once
	release := func() {
		once.Do(func() {
			signal.Stop(sig)
			close(done)
		})
	}
	i.mu.Lock()
	i.cancel, i.stop = cancel, release
	i.mu.Unlock()
	signal.Notify(sig, os.Interrupt)
	go func() {
		for {
			select {
			case <-sig:
				i.interrupt()
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		release()
		cancel()
	}
}

// interrupt counts one Ctrl+C.
func (i *Interrupts) interrupt() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.n++
	switch i.n {
	case 1:
		if i.cancel != nil {
			i.cancel()
		}
	case 2:
		close(i.kill)
		if i.stop != nil {
			i.stop()
		}
	}
}

// Abandoned counts a question abandoned with Ctrl+C as the first
// interrupt, so the next Ctrl+C kills. It cancels nothing itself: the
// runner that asked answers the question with its cancel and only then
// stops the run, so the plugin hears the two in that order.
func (i *Interrupts) Abandoned() {
	if i == nil {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.n == 0 {
		i.n = 1
	}
}

// Killed is closed at the second interrupt.
func (i *Interrupts) Killed() <-chan struct{} {
	if i == nil {
		return nil
	}
	return i.kill
}
