package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/treehash"
)

// stagePrefix names a staging directory after its process, so leftovers of
// a killed run can be told from the work of a running one.
func stagePrefix(kind string) string {
	return fmt.Sprintf("%s-%d-", kind, os.Getpid())
}

// recoverLocked finishes or undoes what an interrupted run left behind, so
// a crash at any point leaves the old state or the new one. The caller
// holds the tree lock, so no commit is in progress.
//
//   - a staging directory whose process is gone is deleted;
//   - a tree in the trash is the old version of a swap or remove that did
//     not finish: if plugins.toml still records the old version (the new
//     tree, if any, was never recorded), the old tree goes back; if the
//     record moved on, the old tree is deleted;
//   - a plugin directory with no record, nothing in the trash and the
//     marker commit leaves while it works is a fresh install that was
//     never recorded: it is removed. Directories fledge did not place
//     (no marker) are never touched. The marker lives in the trash too
//     (older fledges left it in the plugin's data directory), so one
//     directory tells a reader whether anything was interrupted.
func recoverLocked(paths home.Paths, store *lockfile.Store) error {
	cleanStaging(paths)
	file, err := store.Load()
	if err != nil {
		return err
	}
	trash, _ := os.ReadDir(paths.TrashDir())
	acted := false
	markers := map[string][]string{} // plugin → its commit markers
	for _, t := range trash {
		name, _, ok := trashOwner(t.Name())
		if !ok {
			continue
		}
		if strings.HasSuffix(t.Name(), markerSuffix) {
			markers[name] = append(markers[name], filepath.Join(paths.TrashDir(), t.Name()))
			continue
		}
		acted = true
		aside := filepath.Join(paths.TrashDir(), t.Name())
		final := paths.PluginDir(name)
		entry, recorded := file.Get(name)
		_, err := os.Lstat(final)
		placed := err == nil
		switch {
		case !placed && recorded:
			os.Rename(aside, final) // the swap stopped before the new tree landed
		case placed && recorded && !treeIsRecorded(final, entry):
			removeTreeOrLink(final) // a new tree that was never recorded
			os.Rename(aside, final)
		default:
			removeTreeOrLink(aside) // the record moved on: the old tree is garbage
		}
	}
	data, _ := os.ReadDir(filepath.Dir(paths.DataDir("x")))
	for _, e := range data {
		if legacy := filepath.Join(paths.DataDir(e.Name()), "committing"); fileExists(legacy) {
			markers[e.Name()] = append(markers[e.Name()], legacy)
		}
	}
	for name, ms := range markers {
		acted = true
		if _, recorded := file.Get(name); !recorded {
			removeTreeOrLink(paths.PluginDir(name))
		}
		for _, m := range ms {
			os.Remove(m)
		}
	}
	if acted {
		reconcileLinks(paths, file)
	}
	os.Remove(paths.TrashDir()) // when empty: readers then find nothing to open
	return nil
}

// Interrupted lists the plugins an interrupted fledge left half-changed:
// an old tree or a commit marker still in the trash, put there by a
// process that is gone. Such a plugin may be recorded while its tree is
// missing, or while a newer tree that was never recorded stands in its
// place; or it was never recorded while its tree and command links are in
// place. What a running fledge is swapping is not listed. It reads one
// directory (none at all in the usual case, where the trash does not
// exist), takes no lock and changes nothing, so every command can afford
// it.
//
// Staging directories of dead runs and markers an older fledge left in
// data directories are not looked for: nothing a reader shows or runs
// depends on them, and the next change clears them.
func Interrupted(paths home.Paths) []string {
	trash, err := os.ReadDir(paths.TrashDir())
	if err != nil {
		return nil
	}
	var names []string
	for _, t := range trash {
		name, pid, ok := trashOwner(t.Name())
		if !ok || (pid > 0 && (pid == os.Getpid() || processAlive(pid))) {
			continue
		}
		if len(names) == 0 || names[len(names)-1] != name {
			names = append(names, name)
		}
	}
	return names
}

// RecoveryError reports half-changed plugins that could not be recovered.
type RecoveryError struct {
	Plugins []string
	Err     error
}

func (e *RecoveryError) Error() string {
	return fmt.Sprintf("an interrupted fledge left %s half-changed, and recovering it failed: %v", strings.Join(e.Plugins, ", "), e.Err)
}

func (e *RecoveryError) Unwrap() error { return e.Err }

// RecoverInterrupted recovers what Interrupted reports, under the tree
// lock, and returns the plugins it recovered (none, usually, without
// taking the lock). Commands that read plugins.toml call it first, so they
// never show, verify or run a half-changed plugin.
func RecoverInterrupted(paths home.Paths, store *lockfile.Store) ([]string, error) {
	names := Interrupted(paths)
	if len(names) == 0 {
		return nil, nil
	}
	unlock, err := lockedfile.MutexAt(paths.TreeLock()).Lock()
	if err != nil {
		return nil, &RecoveryError{Plugins: names, Err: fmt.Errorf("lock %s: %w", paths.TreeLock(), err)}
	}
	defer unlock()
	if err := recoverLocked(paths, store); err != nil {
		return nil, &RecoveryError{Plugins: names, Err: err}
	}
	return names, nil
}

// reconcileLinks makes the command links in BinDir match the record after
// a recovery: links into a plugin's tree for commands it does not (or no
// longer) provide, or of a disabled plugin, go, and recorded commands get
// their link back. Links pointing anywhere else are the user's and stay.
func reconcileLinks(paths home.Paths, file *lockfile.File) {
	entries, _ := os.ReadDir(paths.BinDir())
	for _, e := range entries {
		cmd, ok := strings.CutPrefix(e.Name(), "fledge-")
		if !ok {
			continue
		}
		link := filepath.Join(paths.BinDir(), e.Name())
		target, err := os.Readlink(link)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(paths.PluginsDir(), target)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		owner := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
		if p, ok := file.Get(owner); !ok || !contains(p.Commands, cmd) || p.IsDisabled() {
			os.Remove(link)
		}
	}
	for i := range file.Plugins {
		linkRecorded(paths, &file.Plugins[i])
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// markerSuffix ends the name of a commit marker in the trash.
const markerSuffix = ".committing"

// commitMarker is left in the trash while name's tree is being placed and
// recorded by this process.
func commitMarker(paths home.Paths, name string) string {
	return filepath.Join(paths.TrashDir(), fmt.Sprintf("%s-%d%s", name, os.Getpid(), markerSuffix))
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// treeIsRecorded reports whether the tree at dir is the one entry records.
func treeIsRecorded(dir string, entry *lockfile.Plugin) bool {
	if entry.TreeHash == "" {
		return true // nothing to compare with: keep what is there
	}
	t, err := treehash.Hash(dir, treehash.Options{AllowExternalLinks: true})
	return err == nil && t.Hash == entry.TreeHash
}

// trashName is where a swap moves name's old tree: "<name>-<pid>.<random>",
// so that a reader can tell a swap in progress from one whose process died.
func trashName(name string) string {
	return fmt.Sprintf("%s-%d.%s", name, os.Getpid(), randomSuffix())
}

// trashOwner returns the plugin name of a trash entry "<name>-<suffix>" and
// the pid that put it there (0 when the suffix does not say, as in entries
// an older fledge wrote).
func trashOwner(entry string) (name string, pid int, ok bool) {
	i := strings.LastIndexByte(entry, '-')
	if i <= 0 {
		return "", 0, false
	}
	if p, _, found := strings.Cut(entry[i+1:], "."); found {
		pid, _ = strconv.Atoi(p)
	}
	return entry[:i], pid, true
}

// cleanStaging removes staging directories whose process no longer runs,
// and then the staging area itself when nothing else is staged there (as a
// finished command's cleanup does; newStage makes it again if need be).
func cleanStaging(paths home.Paths) {
	defer os.Remove(paths.StagingDir()) // only when empty
	entries, err := os.ReadDir(paths.StagingDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		parts := strings.SplitN(e.Name(), "-", 3)
		if len(parts) != 3 {
			continue
		}
		pid, err := strconv.Atoi(parts[1])
		if err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(paths.StagingDir(), e.Name()))
	}
}
