package wasmhost

import (
	"sync"
	"time"
)

// meter measures the time the plugin's code runs. Where the OS can say
// (Linux), it is the CPU time of the thread the plugin runs on, which that
// goroutine holds for the whole run: exact, whatever else the machine does.
// Elsewhere it is the time from start to end less every wait on fledge or
// the user. Waits nest (a pipe write inside a synchronous call), so it
// counts them.
type meter struct {
	mu      sync.Mutex
	used    time.Duration
	since   time.Time // when the plugin last started running
	waiting int       // open waits; running when 0
	now     func() time.Time
	thread  func() (time.Duration, bool) // the plugin thread's CPU time
}

// onThisThread makes the meter read the CPU time of the calling goroutine's
// thread, when the OS allows; the goroutine must hold its thread
// (runtime.LockOSThread) for the rest of the run.
func (m *meter) onThisThread() {
	if cpu, ok := threadCPUClock(); ok {
		m.mu.Lock()
		m.thread = cpu
		m.mu.Unlock()
	}
}

func newMeter() *meter {
	m := &meter{now: time.Now}
	m.since = m.now()
	return m
}

// wait marks the start of a wait; the returned func ends it.
func (m *meter) wait() func() {
	m.mu.Lock()
	if m.waiting == 0 {
		m.used += m.now().Sub(m.since)
	}
	m.waiting++
	m.mu.Unlock()
	return m.resume
}

func (m *meter) resume() {
	m.mu.Lock()
	m.waiting--
	if m.waiting == 0 {
		m.since = m.now()
	}
	m.mu.Unlock()
}

// Used returns the compute time so far.
func (m *meter) Used() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.thread != nil {
		if d, ok := m.thread(); ok {
			return d
		}
	}
	if m.waiting == 0 {
		return m.used + m.now().Sub(m.since)
	}
	return m.used
}
