package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/treehash"
)

// EnvSeedDir lists read-only seed directories (separated as PATH is):
// each laid out as a FLEDGE_HOME — plugins.toml and plugins/<name> —
// by `FLEDGE_HOME=<dir> fledge plugins install ...` when a container
// image or a CI runner is built, then mounted or made read-only.
const EnvSeedDir = "FLEDGE_SEED_DIR"

// CodeSeedChanged: a seeded plugin's tree is not the one its seed's
// plugins.toml records.
const CodeSeedChanged = "seed_changed"

// A command FLEDGE_HOME's plugins.toml does not provide is looked for in
// the seed directories, in order. fledge never writes there: the plugin
// runs from its seeded tree, but its store, files and temporary directory
// are under FLEDGE_HOME as any plugin's are. Before it runs, its tree is
// hashed and compared with the tree hash its seed records (a seed that
// was changed after it was built does not run), and the admin policy,
// the revocation lists and the event trail apply as to any plugin.

// resolveSeeded is resolveIn, then the seeds for a command it does not
// find.
func resolveSeeded(paths home.Paths, seeds []string, plugin, command string) (*Target, error) {
	t, err := resolveIn(paths, plugin, command)
	if len(seeds) == 0 || CodeOf(err) != CodeUnknownCommand {
		return t, err
	}
	for _, dir := range seeds {
		if dir == "" {
			continue
		}
		st, found, serr := resolveSeed(paths, dir, plugin, command)
		if found {
			return st, serr
		}
	}
	return t, err
}

// resolveSeed finds command in the seed at dir.
func resolveSeed(paths home.Paths, dir, plugin, command string) (*Target, bool, error) {
	file := filepath.Join(dir, "plugins.toml")
	lf, err := lockfile.LoadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil // no seed there: the next one, or unknown
	}
	if err != nil {
		// A seed that is there but cannot be read is said, not skipped:
		// skipped, its commands would read as unknown, or run from a
		// later seed the administrator did not put first.
		return nil, true, errorf(CodeStateCorrupt, "seed %s (%s): %v; rebuild the seed, or take it out of %s", dir, EnvSeedDir, err, EnvSeedDir)
	}
	var entry *lockfile.Plugin
	var ok bool
	if plugin == "" {
		entry, ok = lf.CommandOwner(command)
	} else if entry, ok = lf.Get(plugin); ok {
		ok = slices.Contains(entry.Commands, command)
	}
	if !ok {
		return nil, false, nil
	}
	if msg := manifest.CheckName(entry.Name); msg != "" {
		return nil, true, errorf(CodeStateCorrupt, "seed %s names plugin %s: %s", dir, entry.Name, msg)
	}
	t := &Target{Command: command, Entry: *entry, Seed: dir}
	if err := entry.DisabledErr(fmt.Sprintf("command %q does not run", command)); err != nil {
		return t, true, &Error{Code: CodePluginDisabled, Err: err}
	}
	root := filepath.Join(dir, "plugins", entry.Name)
	tree, err := treehash.Hash(root, treehash.Options{AllowExternalLinks: true})
	switch {
	case err != nil:
		return t, true, errorf(CodePluginMissing, "seeded plugin %s: its tree in %s cannot be read: %v", entry.Name, root, err)
	case entry.TreeHash == "":
		return t, true, errorf(CodeSeedChanged, "seeded plugin %s: %s records no tree hash to check its tree against; rebuild the seed with this fledge", entry.Name, filepath.Join(dir, "plugins.toml"))
	case tree.Hash != entry.TreeHash:
		return t, true, errorf(CodeSeedChanged, "seeded plugin %s: its tree in %s is not the one %s records (%s, found %s); it does not run until the seed is rebuilt", entry.Name, root, filepath.Join(dir, "plugins.toml"), entry.TreeHash, tree.Hash)
	}
	t, err = resolveTree(t, root, paths.DecodedManifestFile(entry.Name))
	return t, true, err
}
