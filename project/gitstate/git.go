package gitstate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// DefaultTimeout bounds each git command when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// maxStderr bounds what is kept of a git command's stderr: its first line
// becomes the warning.
const maxStderr = 4 << 10

// hardening is the configuration every git command runs with, on top of
// the user's own. Command-line configuration outranks every file, the
// repository's included, and git passes it on to the git processes it
// starts itself (the status of each submodule). Together with the filter
// drivers disabled per repository (see inspect), it leaves nothing in a
// repository's config that git would execute for the commands run here:
//
//   - core.fsmonitor names a hook git status runs;
//   - core.hooksPath: none of these commands runs a hook, but no hook is
//     found anyway;
//   - core.pager, color.ui: output is read, never shown on a terminal;
//   - log.showSignature would run gpg.program for every commit logged;
//   - protocol.allow=never: a partial clone's missing objects are never
//     fetched (git status fails instead, and the answer fails closed).
var hardening = []string{
	"core.fsmonitor=false",
	"core.hooksPath=" + os.DevNull,
	"core.pager=cat",
	"color.ui=false",
	"log.showSignature=false",
	"protocol.allow=never",
}

// repoEnv are the variables that point git at a repository. The user's
// own apply to the project (git honours them, as it did for the Rust
// fledge); they are dropped when git is pointed at a submodule, as git
// drops them for the processes it starts in one.
var repoEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
	"GIT_PREFIX", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_REPLACE_REF_BASE",
	"GIT_NO_REPLACE_OBJECTS", "GIT_SHALLOW_FILE",
}

// gitRunner runs git commands in one directory.
type gitRunner struct {
	bin     string
	dir     string
	env     []string
	config  []string // -c settings after hardening (the filter drivers disabled)
	timeout time.Duration
}

// env builds git's environment: the user's, never a pager or a prompt,
// no optional locks (git status would otherwise refresh and rewrite the
// index), messages in English (they are quoted in warnings).
func gitEnv(base []string, dropRepo bool) []string {
	env := make([]string, 0, len(base)+6)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_OPTIONAL_LOCKS", "GIT_PAGER", "PAGER", "GIT_TERMINAL_PROMPT", "LC_ALL", "GIT_FLUSH",
			// GIT_CONFIG points git config, and only git config, at one
			// file: the inspection would miss the repository's own.
			"GIT_CONFIG":
			continue
		}
		if dropRepo && isRepoVar(k) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
}

func isRepoVar(k string) bool {
	for _, v := range repoEnv {
		if k == v {
			return true
		}
	}
	return false
}

// Error is a git command that failed: it could not start, exited non-zero
// or took longer than its timeout.
type Error struct {
	Args    string // the git subcommand and its arguments
	Code    int    // git's exit code, or -1
	Message string // git's first line of stderr, or why it did not run
}

func (e *Error) Error() string { return fmt.Sprintf("git %s: %s", e.Args, e.Message) }

// run runs git with args and returns its stdout, at most limit bytes.
// When stop, given the output so far, says enough has been read, or the
// limit is reached, git is stopped and what was read is returned with
// cut set. okCodes are exit codes that are not failures (git config's 1:
// nothing matched).
func (g *gitRunner) run(parent context.Context, limit int, stop func([]byte) bool, okCodes []int, args ...string) (out []byte, cut bool, err error) {
	ctx, cancel := context.WithTimeout(parent, g.timeout)
	defer cancel()
	full := make([]string, 0, 2*len(hardening)+2*len(g.config)+len(args)+1)
	full = append(full, "--no-pager")
	for _, c := range hardening {
		full = append(full, "-c", c)
	}
	for _, c := range g.config {
		full = append(full, "-c", c)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	cmd.WaitDelay = time.Second
	var stderr limitedBuffer
	stderr.max = maxStderr
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	what := strings.Join(args, " ")
	if err != nil {
		return nil, false, &Error{Args: what, Code: -1, Message: err.Error()}
	}
	if err := cmd.Start(); err != nil {
		return nil, false, &Error{Args: what, Code: -1, Message: err.Error()}
	}
	buf := make([]byte, 0, 4096)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, rerr := stdout.Read(buf[len(buf):min(cap(buf), limit+1)])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			buf, cut = buf[:limit], true
		}
		if !cut && stop != nil && n > 0 && stop(buf) {
			cut = true
		}
		if cut || rerr != nil {
			if rerr != nil && !errors.Is(rerr, io.EOF) {
				err = rerr
			}
			break
		}
	}
	if cut {
		cancel() // enough is known; git need not finish
		_ = cmd.Wait()
		return buf, true, nil
	}
	werr := cmd.Wait()
	if parent.Err() != nil {
		return buf, false, &Error{Args: what, Code: -1, Message: "stopped: " + parent.Err().Error()}
	}
	if ctx.Err() != nil {
		return buf, false, &Error{Args: what, Code: -1, Message: fmt.Sprintf("no answer within %s", g.timeout)}
	}
	if werr == nil && err == nil {
		return buf, false, nil
	}
	code := -1
	var exit *exec.ExitError
	if errors.As(werr, &exit) {
		code = exit.ExitCode()
		for _, ok := range okCodes {
			if code == ok {
				return buf, false, nil
			}
		}
	}
	msg := firstLine(stderr.Bytes())
	if msg == "" {
		if werr != nil {
			msg = werr.Error()
		} else {
			msg = err.Error()
		}
	}
	return buf, false, &Error{Args: what, Code: code, Message: msg}
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return strings.TrimSpace(string(line))
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
