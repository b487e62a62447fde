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

// confineHook readies cmd, a hook or build command about to run in dir,
// to run under confine.DeriveBuild's profile, which confine.Start applies
// where it starts, with a private TMPDIR. Where the kernel cannot confine
// it (or Unconfined says who turned confinement off) profile is nil: it
// runs as before, and the log says so. done removes the temporary
// directory.
func (in *Installer) confineHook(cmd *exec.Cmd, name, dir string) (done func(), profile *confine.Profile, err error) {
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
			return done, nil, fmt.Errorf("the %s hook does not run: %w", name, policy.Deny("", *d))
		}
		if in.Log != nil && (in.Unconfined != "" || runtime.GOOS == "linux") {
			fmt.Fprintf(in.Log, "  note: the %s hook runs unconfined: %s\n", name, why)
		}
		return done, nil, nil
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
		return done, nil, fmt.Errorf("create a temporary directory: %w", err)
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
	p := confine.DeriveBuild(dir, at)
	return done, &p, nil
}
