package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/policy"
)

var kernelSupport = sync.OnceValue(confine.Detect)

// forPlugin is in for the hooks of p: with confinement off when p's
// record turned it off (and FLEDGE_CONFINE=off does not already).
func (in *Installer) forPlugin(p *lockfile.Plugin) *Installer {
	if in.Unconfined != "" || p.Unconfined() == "" {
		return in
	}
	cp := *in
	cp.Unconfined = p.Unconfined()
	return &cp
}

// confineHook makes cmd, a hook or build command about to run in dir,
// run under confine.DeriveBuild's profile through the trampoline, with a
// private TMPDIR. Where the kernel cannot confine it (or Unconfined says
// who turned confinement off) it runs as before, and the log says so.
// done removes the temporary directory; confined says whether the kernel
// confines it.
func (in *Installer) confineHook(cmd *exec.Cmd, name, dir string) (done func(), confined bool, err error) {
	done = func() {}
	s := kernelSupport()
	if in.Unconfined != "" || !s.Files {
		why := s.Reason
		if in.Unconfined != "" {
			why = "turned off by " + in.Unconfined
		}
		// The admin policy's [confinement] rules: turning it off may be
		// refused, and so may running where the kernel cannot confine.
		d := in.policy().CheckOff(in.Unconfined)
		if d == nil {
			d = in.policy().CheckConfined(why)
		}
		if d != nil {
			return done, false, fmt.Errorf("the %s hook does not run: %w", name, policy.Deny("", *d))
		}
		if in.Log != nil && (in.Unconfined != "" || runtime.GOOS == "linux") {
			fmt.Fprintf(in.Log, "  note: the %s hook runs unconfined: %s\n", name, why)
		}
		return done, false, nil
	}
	get := func(k string) string {
		for i := len(cmd.Env) - 1; i >= 0; i-- {
			if n, v, ok := strings.Cut(cmd.Env[i], "="); ok && n == k {
				return v
			}
		}
		return ""
	}
	home := get("HOME")
	if home != "" {
		// The one cache directory every toolchain shares: make it, so a
		// first build has somewhere to write.
		_ = os.MkdirAll(filepath.Join(home, ".cache"), 0o700)
	}
	tmp, err := os.MkdirTemp("", "fledge-hook-")
	if err != nil {
		return done, false, fmt.Errorf("create a temporary directory: %w", err)
	}
	done = func() { _ = os.RemoveAll(tmp) }
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	at := confine.Places{Home: home, FledgeHome: in.Paths.Root(), Temp: tmp, Path: filepath.SplitList(get("PATH"))}
	if h, err := os.UserHomeDir(); err == nil && h != home {
		at.UserHome = h
	}
	for _, v := range append(append([]string(nil), confine.ToolEnv...), confine.BuildCacheEnv...) {
		if d := get(v); filepath.IsAbs(d) {
			at.Tools = append(at.Tools, d)
		}
	}
	if err := confine.Wrap(cmd, confine.DeriveBuild(dir, at)); err != nil {
		done()
		return func() {}, false, err
	}
	return done, true, nil
}
