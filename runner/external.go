package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// ExternalPrefix starts the name of a program on PATH that `fledge <name>`
// runs when no installed plugin provides <name>, as git, cargo and kubectl
// run their external subcommands and as the Rust fledge does.
const ExternalPrefix = "fledge-"

// External is a fledge-<name> program found on PATH. It is not a plugin:
// fledge did not install it, records nothing about it and grants it
// nothing; it runs with inherited stdio and no protocol.
type External struct {
	// Name is the command: the file name without "fledge-" (and, on
	// Windows, without its executable extension).
	Name string
	// Path is the program as found on PATH (not resolved).
	Path string
}

// FindExternal looks for fledge-<name> in the directories of pathEnv (a
// PATH value), in order, and returns the first executable one. Unlike a
// shell it skips relative entries (an empty entry and "." among them):
// what runs must not depend on the directory fledge is run in, as Go's
// os/exec and git also refuse. Directories inside FLEDGE_HOME (fledge's
// own bin/ and the Rust fledge's plugins/bin/, whose links point at
// installed plugins) and programs that resolve into it are skipped too:
// an installed plugin's binary runs only through the runner, with its
// grants. A name that could not be a command (see manifest.CheckName)
// finds nothing.
func FindExternal(paths home.Paths, pathEnv, name string) (External, bool) {
	if manifest.CheckName(name) != "" {
		return External{}, false
	}
	state := realOrAbs(paths.Root())
	for _, dir := range pathDirs(pathEnv, state) {
		p, err := exec.LookPath(filepath.Join(dir.path, ExternalPrefix+name))
		if err != nil || insideState(p, state) {
			continue
		}
		return External{Name: name, Path: p}, true
	}
	return External{}, false
}

// Externals lists the fledge-<name> programs on pathEnv, the first of
// each name as FindExternal finds it, sorted by name. It reads each PATH
// directory once (a directory PATH names twice, or through a symlink as
// /bin and /usr/bin often are, once), and the fledge-* names it holds are
// remembered in paths' externals index while the directory stays as it was
// (a stat each: see externalNames); the programs themselves are looked at
// every time.
func Externals(paths home.Paths, pathEnv string) []External {
	state := realOrAbs(paths.Root())
	read := map[string]bool{}
	var dirs []string
	for _, dir := range pathDirs(pathEnv, state) {
		if read[dir.real] {
			continue
		}
		read[dir.real] = true
		dirs = append(dirs, dir.path)
	}
	seen := map[string]bool{}
	out := []External{}
	for i, files := range externalNames(paths.ExternalsIndexFile(), dirs) {
		for _, file := range files {
			name, ok := externalName(file)
			if !ok || seen[name] || manifest.CheckName(name) != "" {
				continue
			}
			p, err := exec.LookPath(filepath.Join(dirs[i], file))
			if err != nil || insideState(p, state) {
				continue
			}
			seen[name] = true
			out = append(out, External{Name: name, Path: p})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// dirNames lists dir's entries in directory order (FindExternal's order
// within a directory does not matter: a name occurs once).
func dirNames(dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	return names
}

// externalName is the command a PATH entry's file name provides.
func externalName(file string) (string, bool) {
	name, ok := strings.CutPrefix(file, ExternalPrefix)
	if !ok || name == "" {
		return "", false
	}
	if runtime.GOOS == "windows" {
		ext := filepath.Ext(name)
		if !windowsExecutable(ext) {
			return "", false
		}
		name = strings.TrimSuffix(name, ext)
	}
	return name, name != ""
}

// windowsExecutable reports whether ext is in PATHEXT (as os/exec reads it).
func windowsExecutable(ext string) bool {
	if ext == "" {
		return false
	}
	exts := os.Getenv("PATHEXT")
	if exts == "" {
		exts = ".com;.exe;.bat;.cmd"
	}
	for _, e := range filepath.SplitList(exts) {
		if strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}

// pathDir is a PATH directory as named and resolved.
type pathDir struct{ path, real string }

// pathDirs are pathEnv's absolute directories outside state, each once.
func pathDirs(pathEnv, state string) []pathDir {
	var dirs []pathDir
	seen := map[string]bool{}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" || !filepath.IsAbs(d) || seen[d] {
			continue
		}
		seen[d] = true
		real := realOrAbs(d)
		if manifest.Within(state, real) {
			continue
		}
		dirs = append(dirs, pathDir{d, real})
	}
	return dirs
}

// insideState reports whether p, resolved, lies in FLEDGE_HOME.
func insideState(p, state string) bool {
	return manifest.Within(state, realOrAbs(p))
}

// RunExternal runs ext as `fledge <name>` runs a plugin without a protocol:
// arguments verbatim, inherited stdio, exit code passed through, Ctrl+C
// and req.Timeout handled the same way. It gets no grants and no init;
// FLEDGE_PLUGIN_DIR is the directory above the one holding the program
// (resolved), as the Rust fledge sets it, and FLEDGE_NON_INTERACTIVE=1
// under req.NonInteractive.
func (r *Runner) RunExternal(ctx context.Context, ext External, req Request) (*Result, error) {
	rr := r.withDefaults()
	res := &Result{Command: req.Command, ExitCode: -1}
	t := &Target{Command: req.Command, Entry: lockfile.Plugin{Name: ExternalPrefix + ext.Name}, Binary: ext.Path}
	if real, err := filepath.EvalSymlinks(ext.Path); err == nil {
		t.Root = filepath.Dir(filepath.Dir(real))
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if req.Timeout > 0 {
		var stop context.CancelFunc
		runCtx, stop = context.WithTimeoutCause(runCtx, req.Timeout, errRunTimeout)
		defer stop()
	}
	err := rr.runNative(runCtx, t, req, res)
	return res, rr.classify(runCtx, ctx, t, req, res, err)
}
