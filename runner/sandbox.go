package runner

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Confinement is how a plugin's own process is confined this run: its
// profile (package confine draws it from the effective grants) and whether
// the kernel enforces it.
type Confinement struct {
	Profile confine.Profile
	// Enforced is true when the kernel enforces the whole profile; Reason
	// says why not otherwise.
	Enforced bool
	Reason   string
}

// supportOf is the kernel's answer, asked once per process.
var supportOf = sync.OnceValue(confine.Detect)

// confinement draws t's profile for this run, in the directory fledge runs
// in. The profile comes from t.Grants() (plugins.toml narrowed by the
// admin policy) and the filesystem scope the approved manifest declares.
func (r *Runner) confinement(t *Target, tmp string) Confinement {
	at := confine.Places{
		Home:       r.homeDir(),
		UserHome:   r.userHome(),
		FledgeHome: r.Paths.Root(),
		PluginRoot: t.Root,
		Data:       r.Paths.PluginFilesDir(t.Entry.Name),
		Temp:       tmp,
		Path:       filepath.SplitList(getenv(r.Environ(), "PATH")),
	}
	for _, v := range confine.ToolEnv {
		if d := getenv(r.Environ(), v); filepath.IsAbs(d) {
			at.Tools = append(at.Tools, d)
		}
	}
	if wd, err := r.Getwd(); err == nil {
		at.Project = projectDirs(wd, at.Home)
	}
	g := t.Grants()
	declared, granted := t.Manifest.Capabilities.Filesystem, confine.Grants{Filesystem: g.Filesystem, Network: g.Network}
	// The same answer audit, info and list give (confine.StatusOf).
	st := confine.StatusOf(declared, granted, supportOf(), r.unconfined(t))
	return Confinement{Profile: confine.Derive(declared, granted, at), Enforced: st.Enforced, Reason: st.Reason}
}

// unconfined says who turned kernel confinement off for t: FLEDGE_CONFINE=off
// (Unconfined), else t's plugins.toml record (fledge plugins unconfine);
// "" when it is on.
func (r *Runner) unconfined(t *Target) string {
	if r.Unconfined != "" {
		return r.Unconfined
	}
	return t.Entry.Unconfined()
}

// confinementPolicy refuses to start t where the admin policy's
// [confinement] rules forbid it: confinement turned off where allow_off is
// false, or grants the kernel does not enforce here where require is true.
func (r *Runner) confinementPolicy(t *Target) error {
	pol := r.Settings.Policy()
	if pol.Empty() || t.IsWasm() || t.Manifest == nil {
		return nil
	}
	d := pol.CheckOff(r.unconfined(t))
	if d == nil {
		g := t.Grants()
		st := confine.StatusOf(t.Manifest.Capabilities.Filesystem, confine.Grants{Filesystem: g.Filesystem, Network: g.Network}, supportOf(), r.unconfined(t))
		if !st.Enforced {
			d = pol.CheckConfined(st.Reason)
		}
	}
	if d == nil {
		return nil
	}
	return &Error{Code: CodePolicyDenied, Err: fmt.Errorf("plugin %s does not run: %w", t.Entry.Name, policy.Deny(t.Entry.Name, *d))}
}

// confineCmd readies cmd, a native plugin about to start, to run
// confined: it gets a private temporary directory (TMPDIR), and profile is
// what startProcess has confine.Start apply to the thread that starts it.
// Where the kernel cannot confine it, profile is nil: the plugin runs as
// it always did and a note on stderr says so. done empties the temporary
// directory (confine.TakeTemp) for the plugin's next run.
func (r *Runner) confineCmd(cmd *exec.Cmd, t *Target) (done func(), profile *confine.Profile, err error) {
	done = func() {}
	if t.Root == "" || t.Manifest == nil {
		return done, nil, nil
	}
	if r.unconfined(t) != "" {
		fmt.Fprintf(r.Stderr, "fledge: plugin %s runs unconfined: turned off by %s; it gets your whole environment\n", t.Entry.Name, r.unconfined(t))
		return done, nil, nil
	}
	if s := supportOf(); !s.Files {
		// Elsewhere than Linux there is nothing to confine with, and
		// audit says so; on Linux the kernel could, so every run says why
		// it does not.
		if runtime.GOOS == "linux" {
			fmt.Fprintf(r.Stderr, "fledge: plugin %s runs unconfined, as before: %s (its environment is still the base and what it is granted)\n", t.Entry.Name, s.Reason)
		}
		return done, nil, nil
	}
	if err := os.MkdirAll(r.Paths.PluginFilesDir(t.Entry.Name), 0o700); err != nil {
		return done, nil, fmt.Errorf("create the plugin's files directory: %w", err)
	}
	tmp, err := confine.TakeTemp(r.Paths.PluginTempDir(t.Entry.Name), r.Paths.PluginShortTempDir(t.Entry.Name), t.Entry.Name)
	if err != nil {
		return done, nil, fmt.Errorf("create a temporary directory: %w", err)
	}
	done = tmp.Release
	cmd.Env = confine.SetEnv(cmd.Env, "TMPDIR", tmp.Path)
	c := r.confinement(t, tmp.Path)
	for _, d := range c.Profile.Dropped {
		fmt.Fprintf(r.Stderr, "fledge: plugin %s is not given %s\n", t.Entry.Name, termsafe.Line(d))
	}
	if !c.Enforced {
		fmt.Fprintf(r.Stderr, "fledge: plugin %s is confined in part: %s\n", t.Entry.Name, c.Reason)
	}
	return done, &c.Profile, nil
}

// homeDir is the home directory the plugin is given (its HOME), else the
// user's.
func (r *Runner) homeDir() string {
	if h := getenv(r.Environ(), "HOME"); h != "" {
		return h
	}
	return r.UserHome
}

// userHome is the user's own home directory (Runner.UserHome, else the
// process's).
func (r *Runner) userHome() string {
	if r.UserHome != "" {
		return r.UserHome
	}
	h, _ := os.UserHomeDir()
	return h
}

// projectDirs is the project a plugin may be granted: the directory fledge
// runs in and the top of the git work tree holding it, unless that is the
// home directory or above it (a dotfiles repository is not the project).
func projectDirs(wd, home string) []string {
	dirs := []string{wd}
	realHome := realOrAbs(home)
	for d := realOrAbs(wd); ; d = filepath.Dir(d) {
		if home != "" && manifest.Within(d, realHome) {
			break
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if d != wd {
				dirs = append(dirs, d)
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return dirs
}

func getenv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
