package runner

import (
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"time"

	"github.com/corvidlabs/fledge-go/confine"
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
	s.respondExec(m.ID, res)
}

// respondExec answers an exec. The line can be tens of MiB: it is encoded
// once, into a buffer of its exact size that the inbox takes over, rather
// than into the session's reused scratch (which would keep it) and a copy.
func (s *session) respondExec(id json.RawMessage, res protocol.ExecResult) {
	size := len(`{"type":"response","id":,"value":{"code":,"stdout":"","stderr":""}}`+"\n") + len(id) + 20
	_, out := protocol.EncodedPrefix(res.Stdout, math.MaxInt)
	_, errs := protocol.EncodedPrefix(res.Stderr, math.MaxInt)
	size += out + errs
	b, ok := protocol.AppendResponse(make([]byte, 0, size), id, res)
	if !ok {
		s.respond(id, res)
		return
	}
	if err := s.in.write(b, true); err != nil {
		s.fail(CodeMalformedResponse, err)
	}
}

// execText is what an exec response carries of one captured stream: the
// longest start of it whose JSON encoding fits in max bytes, so that no
// output, however it escapes (a NUL byte becomes six), makes a response
// longer than twice max and a note. What is cut is counted in a note, as
// capBuffer counts what it did not keep.
func execText(c *capBuffer, max int) string {
	b := c.buf.Bytes()
	n, _ := protocol.EncodedPrefix(b, max)
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
	cmd.Env = confine.FilterEnv(s.r.Environ())
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
	p, err := startProcess(cmd, true, nil)
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
