package runner

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/internal/procgroup"
)

// child is a running plugin: a process, or a wasm instance standing in for
// one (see wasm.go).
type child interface {
	// wait is closed once the child has exited.
	wait() <-chan struct{}
	// exitCode is as process.exitCode.
	exitCode() (code int, signaled bool, ok bool)
	// interrupt is the terminal's Ctrl+C (SIGINT to a process group);
	// terminate and kill are SIGTERM and SIGKILL, or what stands for them.
	interrupt()
	terminate()
	kill()
	// failure is how the child failed beyond its exit code (a wasm trap
	// or limit), or nil.
	failure() *Error
	// remains reports whether, its leader having exited, the child's
	// process group still has a process in it.
	remains() bool
}

// process is a started child: a plugin or an exec command.
type process struct {
	cmd    *exec.Cmd
	group  bool // the child leads its own process group
	exited chan struct{}
	state  *os.ProcessState
	err    error
}

// startProcess starts cmd, in a process group of its own when group is set,
// confined to profile unless it is nil (see confineCmd), and reaps it in
// the background. cmd's standard streams must be nil or *os.File, so that
// waiting never depends on a pipe being closed (a grandchild may hold it
// open for ever).
func startProcess(cmd *exec.Cmd, group bool, profile *confine.Profile) (*process, error) {
	if group {
		procgroup.Isolate(cmd)
	}
	if err := confine.Start(cmd, profile); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, group: group, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	return p, nil
}

func (p *process) wait() <-chan struct{} { return p.exited }

func (p *process) failure() *Error { return nil }

func (p *process) remains() bool { return p.group && procgroup.Alive(p.cmd.Process) }

// done reports whether the child has exited.
func (p *process) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// interrupt sends the child (and its group) SIGINT.
func (p *process) interrupt() { p.send(procgroup.Interrupt) }

// terminate asks the child (and its group) to stop.
func (p *process) terminate() { p.send(procgroup.Terminate) }

// kill stops the child (and its group) for good.
func (p *process) kill() { p.send(procgroup.Kill) }

// send signals the child's whole process group when it has one (reaching
// grandchildren that outlived it), else the child alone while it runs.
func (p *process) send(sig procgroup.Signal) {
	if p.group {
		_ = procgroup.Send(p.cmd.Process, sig, true)
	} else if !p.done() {
		_ = procgroup.Send(p.cmd.Process, sig, false)
	}
}

// exitCode is the child's exit code: its own, or 128+n when signal n
// killed it. ok is false when it has not exited or could not be waited for.
func (p *process) exitCode() (code int, signaled bool, ok bool) {
	if !p.done() || p.state == nil {
		return -1, false, false
	}
	code, signaled = procgroup.ExitCode(p.state)
	return code, signaled, true
}

// pipe returns an os.Pipe whose read end is non-blocking, so deadlines and
// Close interrupt reads.
func pipe() (r, w *os.File, err error) {
	return os.Pipe()
}

// drain copies a child's pipe into w in the background until EOF or stop.
type drain struct {
	f    *os.File
	done chan struct{}
}

func startDrain(f *os.File, w io.Writer) *drain {
	d := &drain{f: f, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		buf := make([]byte, 32<<10)
		r := &pipeReader{f: f}
		for {
			n, err := r.Read(buf)
			if n > 0 {
				_, _ = w.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return d
}

// stop waits up to grace for the copy to reach EOF, then stops waiting for
// whatever still holds the pipe open (what the pipe holds by then is still
// copied: see pipeReader), and closes it.
func (d *drain) stop(grace time.Duration) {
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-d.done:
	case <-t.C:
		_ = d.f.SetReadDeadline(time.Now())
		<-d.done
	}
	_ = d.f.Close()
}

// capBuffer keeps the first max bytes written to it and counts the rest.
// It never fails a write, so the child is drained whatever it prints.
type capBuffer struct {
	buf     bytes.Buffer
	max     int
	dropped int64
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) <= room {
			c.buf.Write(p)
			return len(p), nil
		}
		c.buf.Write(p[:room])
		c.dropped += int64(len(p) - room)
		return len(p), nil
	}
	c.dropped += int64(len(p))
	return len(p), nil
}

// String returns what was kept, with a note when the rest was dropped.
func (c *capBuffer) String() string {
	if c.dropped == 0 {
		return c.buf.String()
	}
	return fmt.Sprintf("%s\n[fledge: output truncated: kept the first %d bytes, dropped %d]\n", c.buf.String(), c.max, c.dropped)
}

// syncWriter serialises writes from several goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
