package wasmhost

import (
	"sync"
	"time"
)

// meter measures the time the plugin's code runs: from start to end, less
// every wait on fledge or the user. Waits nest (a sleep inside nothing
// else, a pipe write inside a synchronous call), so it counts them.
type meter struct {
	mu      sync.Mutex
	used    time.Duration
	since   time.Time // when the plugin last started running
	waiting int       // open waits; running when 0
	now     func() time.Time
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
	if m.waiting == 0 {
		return m.used + m.now().Sub(m.since)
	}
	return m.used
}
