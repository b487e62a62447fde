package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/manifest"
)

// nativeRuntime runs a plugin's own executable as a process: through the
// protocol engine when it speaks fledge-v1, otherwise with the terminal's
// stdio. Its time limit is --timeout alone.
type nativeRuntime struct{}

func (nativeRuntime) timeout(requested time.Duration) time.Duration { return requested }

func (nativeRuntime) start(s *session) error { return s.startNative() }

func (nativeRuntime) run(ctx context.Context, cancel context.CancelCauseFunc, r *Runner, t *Target, req Request, res *Result) error {
	if req.Timeout > 0 {
		clock := time.AfterFunc(req.Timeout, func() { cancel(errRunTimeout) })
		defer clock.Stop()
	}
	if t.Manifest.IsProtocol() {
		return r.runProtocol(ctx, cancel, t, req, res)
	}
	return r.runNative(ctx, t, req, res)
}

// EnvPluginDir names the plugin's real installed root in every plugin's
// environment.
const EnvPluginDir = "FLEDGE_PLUGIN_DIR"

// EnvNonInteractive is set to 1 for plugins run with --ni.
const EnvNonInteractive = "FLEDGE_NON_INTERACTIVE"

// pluginEnv is the environment of the plugin process: the base
// environment and the variables t is granted (confine.Environment), or
// the user's whole environment where confinement is turned off for t, plus
// FLEDGE_PLUGIN_DIR (and FLEDGE_NON_INTERACTIVE under --ni). A variable
// withheld that t may have wanted is named in one note on stderr with the
// command that grants it, never with its value (see wantedEnv).
func (r *Runner) pluginEnv(t *Target, req Request) []string {
	env := r.Environ()
	if t.Root != "" && t.Manifest != nil && r.unconfined(t) == "" {
		var withheld, secret []string
		env, withheld, secret = confine.Environment(env, t.Grants().Environment)
		r.noteWithheld(t, withheld, secret)
	}
	env = confine.SetEnv(env, EnvPluginDir, t.Root)
	if t.Root == "" { // an external program whose directory is unknown
		env = env[:len(env)-1]
	}
	if req.NonInteractive {
		env = confine.SetEnv(env, EnvNonInteractive, "1")
	}
	return env
}

// noteWithheld names, in one note, the withheld variables t may have
// wanted (wantedEnv), with the command that grants them; those
// plugins.toml grants but the admin policy takes away are said so in the
// same note, without a command: a grant would be refused too.
func (r *Runner) noteWithheld(t *Target, withheld, secret []string) {
	wanted, why := r.wantedEnv(t, withheld)
	var byPolicy, grantable []string
	for _, n := range wanted {
		if manifest.CoversEnv(t.Entry.Capabilities.Environment, n) {
			byPolicy = append(byPolicy, n)
		} else {
			grantable = append(grantable, n)
		}
	}
	policyText := ""
	if len(byPolicy) > 0 {
		policyText = strings.Join(byPolicy, ", ") + ", which plugins.toml grants and the admin policy withholds (see fledge plugins policy)"
	}
	if len(grantable) == 0 {
		if policyText != "" {
			fmt.Fprintf(r.Stderr, "fledge: plugin %s is not given %s\n", t.Entry.Name, policyText)
		}
		return
	}
	var looks []string
	for _, n := range grantable {
		if slices.Contains(secret, n) {
			looks = append(looks, n)
		}
	}
	items := make([]string, len(grantable))
	for i, n := range grantable {
		items[i] = manifest.EnvItem(n)
	}
	line := fmt.Sprintf("fledge: plugin %s is not given %s (%s", t.Entry.Name, strings.Join(grantable, ", "), why)
	if len(looks) > 0 {
		line += "; " + strings.Join(looks, ", ") + " would be in the base environment but looks like a secret"
	}
	line += "): fledge plugins grant " + t.Entry.Name + " " + strings.Join(items, " ")
	if policyText != "" {
		line += "; nor " + policyText
	}
	fmt.Fprintln(r.Stderr, line)
}

// wantedEnv keeps of withheld (set here, not given to t) the variables t
// may have wanted, and says why: those its approved manifest lists under
// environment and are not granted; for a plugin whose manifest lists none
// (every plugin the Rust fledge published), those its script names
// (confine.NamedIn: the command's file, its first 256 KiB, unless it is a
// compiled program: one whose header resolving it recognised is not read
// again), of three characters or more (the shell's "_" is no setting).
// Only names a grant can spell are kept.
func (r *Runner) wantedEnv(t *Target, withheld []string) (wanted []string, why string) {
	var valid []string
	for _, n := range withheld {
		if manifest.CheckEnvName(n) == "" && !strings.HasSuffix(n, "*") {
			valid = append(valid, n)
		}
	}
	if declared := t.Manifest.Capabilities.Environment; len(declared) > 0 {
		for _, n := range valid {
			if confine.MatchAny(declared, n) {
				wanted = append(wanted, n)
			}
		}
		return wanted, "it declares them, they are not granted"
	}
	why = "its script names them"
	if t.compiled {
		return nil, why
	}
	valid = slices.DeleteFunc(valid, func(n string) bool { return len(n) < 3 })
	return confine.NamedIn(t.Binary, valid), why
}

// runNative runs a plugin without a protocol: stdio inherited, arguments
// on argv, in fledge's own process group so the terminal's Ctrl+C reaches
// it directly, or in one of its own when Headless (see stop.go for how a
// run is stopped).
func (r *Runner) runNative(ctx context.Context, t *Target, req Request, res *Result) error {
	cmd := exec.Command(t.Binary, req.Args...)
	cmd.Args[0] = t.Binary
	cmd.Env = r.pluginEnv(t, req)
	unconfine, profile, err := r.confineCmd(cmd, t)
	if err != nil {
		return errorf(CodeLaunchFailed, "plugin %s: %v", t.Entry.Name, err)
	}
	defer unconfine()

	var closers []*os.File
	defer func() {
		for _, f := range closers {
			_ = f.Close()
		}
	}()
	var drains []*drain
	attach := func(w io.Writer, dst **os.File, capture *capBuffer) error {
		if f, ok := w.(*os.File); ok && capture == nil {
			*dst = f
			return nil
		}
		pr, pw, err := pipe()
		if err != nil {
			return err
		}
		closers = append(closers, pw)
		*dst = pw
		sink := w
		if capture != nil {
			sink = capture
		}
		drains = append(drains, startDrain(pr, &syncWriter{w: sink}))
		return nil
	}
	var capture *capBuffer
	if req.Capture {
		capture = &capBuffer{max: r.Limits.Capture}
	}
	var stdout, stderr *os.File
	if err := attach(r.Stdout, &stdout, capture); err != nil {
		return errorf(CodeLaunchFailed, "plugin %s: %v", t.Entry.Name, err)
	}
	if err := attach(r.Stderr, &stderr, nil); err != nil {
		return errorf(CodeLaunchFailed, "plugin %s: %v", t.Entry.Name, err)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if f, ok := r.Stdin.(*os.File); ok {
		cmd.Stdin = f
	} else if r.Stdin != nil {
		pr, pw, err := pipe()
		if err != nil {
			return errorf(CodeLaunchFailed, "plugin %s: %v", t.Entry.Name, err)
		}
		closers = append(closers, pr)
		cmd.Stdin = pr
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := r.Stdin.Read(buf)
				if n > 0 {
					if _, werr := pw.Write(buf[:n]); werr != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			_ = pw.Close()
		}()
	}

	p, err := startProcess(cmd, r.Headless, profile)
	if err != nil {
		return errorf(CodeLaunchFailed, "plugin %s: start %s: %v", t.Entry.Name, t.Binary, err)
	}
	res.Started = true
	for _, f := range closers {
		_ = f.Close()
	}
	closers = nil

	select {
	case <-p.exited:
	case <-ctx.Done():
		r.stop(p, req.Kill, r.stopSchedule(ctx, false))
	}
	<-p.exited
	for _, d := range drains {
		d.stop(r.Timeouts.ExitGrace)
	}
	res.ExitCode, res.Signaled, _ = p.exitCode()
	if capture != nil {
		res.Output, res.OutputTruncated = cleanCapture(capture)
	}
	return nil
}
