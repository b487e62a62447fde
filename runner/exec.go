package runner

import (
	"fmt"
	"math"
	"os/exec"
	"time"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/internal/procgroup"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/protocol"
)

// Exit codes of exec results fledge makes up.
const (
	execCodeRefused = 1   // the cwd was refused: nothing ran
	execCodeTimeout = 124 // killed at the timeout, as timeout(1) reports
)

// exec runs a shell command for the plugin (exec grant required) and
// answers with its code, stdout and stderr. An interrupted run cancels the
// request instead.
func (s *session) exec(m *protocol.Outbound) {
	if !s.granted.Exec {
		s.deny(manifest.CapExec)
		s.respond(m.ID, protocol.ExecResult{Code: protocol.ExitDenied, Stderr: "exec capability not granted"})
		return
	}
	if s.ctx.Err() != nil {
		s.cancelRequest(m.ID, s.reason())
		return
	}
	s.flush()
	res, cancelled := s.runExec(m)
	if cancelled {
		s.cancelRequest(m.ID, s.reason())
		return
	}
	s.respond(m.ID, res)
}

// execText is what an exec response carries of one captured stream: the
// longest start of it whose JSON encoding fits in max bytes, so that no
// output, however it escapes (a NUL byte becomes six), makes a response
// longer than twice max and a note. What is cut is counted in a note, as
// capBuffer counts what it did not keep.
func execText(c *capBuffer, max int) string {
	b := c.buf.Bytes()
	n := jsonPrefix(b, max)
	dropped := c.dropped + int64(len(b)-n)
	if dropped == 0 {
		return string(b)
	}
	return string(b[:n]) + fmt.Sprintf("\n[fledge: output truncated: kept the first %d bytes, dropped %d]\n", n, dropped)
}

// execTimeout is the request's timeout in seconds, defaulted and capped.
func (s *session) execTimeout(sec *float64) time.Duration {
	if sec == nil || *sec <= 0 || math.IsNaN(*sec) {
		return s.r.Timeouts.ExecDefault
	}
	d := time.Duration(*sec * float64(time.Second))
	if *sec > s.r.Timeouts.ExecMax.Seconds() {
		d = s.r.Timeouts.ExecMax
	}
	return d
}

// confinement is where this run's exec commands may work (built once).
func (s *session) confinement() *confinement {
	if s.confine == nil {
		var runDir, gitRoot string
		if s.project != nil {
			runDir = s.project.Root
		}
		if r := s.gitRepo(); r != nil {
			gitRoot = r.Root
		}
		s.confine = newConfinement(runDir, gitRoot, s.t.Root, s.r.Paths.Root(), s.r.UserHome)
	}
	return s.confine
}

// runExec runs the command confined to the allowed directories, with
// stdin closed, a filtered environment, in its own process group (killed
// whole at the timeout), its output drained as it runs and capped.
func (s *session) runExec(m *protocol.Outbound) (res protocol.ExecResult, cancelled bool) {
	dir, err := s.confinement().resolve(m.Cwd)
	if err != nil {
		return protocol.ExecResult{Code: execCodeRefused, Stderr: err.Error()}, false
	}
	timeout := s.execTimeout(m.Timeout)

	shell, args := procgroup.Shell(m.Command)
	cmd := exec.Command(shell, args...)
	cmd.Dir = dir
	cmd.Env = FilterEnv(s.r.Environ())
	outR, outW, err := pipe()
	if err != nil {
		return protocol.ExecResult{Code: execCodeRefused, Stderr: err.Error()}, false
	}
	errR, errW, err := pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return protocol.ExecResult{Code: execCodeRefused, Stderr: err.Error()}, false
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	stdout := &capBuffer{max: s.r.Limits.ExecOutput}
	stderr := &capBuffer{max: s.r.Limits.ExecOutput}
	p, err := startProcess(cmd, true)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return protocol.ExecResult{Code: 127, Stderr: fmt.Sprintf("cannot run the command: %v", err)}, false
	}
	dOut, dErr := startDrain(outR, stdout), startDrain(errR, stderr)

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	timedOut := false
	select {
	case <-p.exited:
	case <-timer.C:
		timedOut = true
		p.kill()
	case <-s.live.Done():
		cancelled = true
		p.kill()
	}
	<-p.exited
	// A background grandchild may hold the pipes open: give it a moment,
	// then stop listening.
	grace := s.r.Timeouts.ExitGrace
	dOut.stop(grace)
	dErr.stop(grace)
	code, _, _ := p.exitCode()
	limit := s.r.Limits.ExecOutput
	res = protocol.ExecResult{Code: code, Stdout: execText(stdout, limit), Stderr: execText(stderr, limit)}
	if timedOut {
		res.Code = execCodeTimeout
		res.Stderr += fmt.Sprintf("fledge: command timed out after %s and was killed\n", timeout)
	}
	return res, cancelled
}

// jsonPrefix returns the length of the longest start of b, ending on a
// UTF-8 boundary, whose JSON string encoding (as encoding/json writes it,
// HTML escaping off; quotes not counted) takes at most max bytes. A
// control or invalid byte costs 6 bytes (\u0001, \ufffd), so 1 MiB of NUL
// bytes is 6 MiB of JSON; TestJSONPrefix holds it to encoding/json.
func jsonPrefix(b []byte, max int) int {
	cost := 0
	for i := 0; i < len(b); {
		c, size, w := b[i], 1, 1
		switch {
		case c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\':
		case c == '"', c == '\\', c == '\b', c == '\f', c == '\n', c == '\r', c == '\t':
			w = 2
		case c < utf8.RuneSelf:
			w = 6
		default:
			r, sz := utf8.DecodeRune(b[i:])
			size, w = sz, sz
			if r == utf8.RuneError && sz == 1 || r == '\u2028' || r == '\u2029' {
				w = 6
			}
		}
		if cost+w > max {
			return i
		}
		cost += w
		i += size
	}
	return len(b)
}
