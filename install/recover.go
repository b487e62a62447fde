package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
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
//     (no marker) are never touched.
func recoverLocked(paths home.Paths, store *lockfile.Store) error {
	cleanStaging(paths)
	file, err := store.Load()
	if err != nil {
		return err
	}
	trash, _ := os.ReadDir(paths.TrashDir())
	acted := false
	for _, t := range trash {
		name, ok := trashOwner(t.Name())
		if !ok {
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
	markers, _ := os.ReadDir(filepath.Dir(paths.DataDir("x")))
	for _, e := range markers {
		name := e.Name()
		marker := commitMarker(paths, name)
		if _, err := os.Stat(marker); err != nil {
			continue
		}
		acted = true
		if _, recorded := file.Get(name); !recorded {
			removeTreeOrLink(paths.PluginDir(name))
		}
		os.Remove(marker)
	}
	if acted {
		reconcileLinks(paths, file)
	}
	return nil
}

// reconcileLinks makes the command links in BinDir match the record after
// a recovery: links into a plugin's tree for commands it does not (or no
// longer) provide go, and recorded commands get their link back. Links
// pointing anywhere else are the user's and stay.
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
		if p, ok := file.Get(owner); !ok || !contains(p.Commands, cmd) {
			os.Remove(link)
		}
	}
	for i := range file.Plugins {
		p := &file.Plugins[i]
		cmds := p.CommandDetails
		if len(cmds) == 0 { // an older record: the binaries are in the manifest
			if m, err := manifest.Load(paths.PluginDir(p.Name)); err == nil {
				for _, c := range m.Commands {
					if contains(p.Commands, c.Name) {
						cmds = append(cmds, c)
					}
				}
			}
		}
		for _, c := range cmds {
			link := paths.CommandLink(c.Name)
			if _, err := os.Lstat(link); err == nil || manifest.CheckBinaryPath(c.Binary) != "" {
				continue
			}
			if _, err := os.Stat(paths.PluginDir(p.Name)); err != nil {
				continue
			}
			os.MkdirAll(paths.BinDir(), 0o755)
			os.Symlink(filepath.Join(paths.PluginDir(p.Name), filepath.FromSlash(c.Binary)), link)
		}
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

// commitMarker is left in a plugin's data directory while its tree is being
// placed and recorded.
func commitMarker(paths home.Paths, name string) string {
	return filepath.Join(paths.DataDir(name), "committing")
}

// treeIsRecorded reports whether the tree at dir is the one entry records.
func treeIsRecorded(dir string, entry *lockfile.Plugin) bool {
	if entry.TreeHash == "" {
		return true // nothing to compare with: keep what is there
	}
	t, err := treehash.Hash(dir, treehash.Options{AllowExternalLinks: true})
	return err == nil && t.Hash == entry.TreeHash
}

// trashOwner returns the plugin name of a trash entry "<name>-<suffix>".
func trashOwner(entry string) (string, bool) {
	i := strings.LastIndexByte(entry, '-')
	if i <= 0 {
		return "", false
	}
	return entry[:i], true
}

// cleanStaging removes staging directories whose process no longer runs.
func cleanStaging(paths home.Paths) {
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
