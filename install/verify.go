package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/treehash"
)

// Verify statuses.
const (
	VerifyOK         = "ok"         // the tree is exactly what was installed
	VerifyModified   = "modified"   // files changed, appeared or vanished
	VerifyMissing    = "missing"    // the plugin's directory is gone
	VerifyLinked     = "linked"     // a live link: changes are expected
	VerifyUnrecorded = "unrecorded" // no hash was recorded (e.g. by the Rust fledge)
	VerifyError      = "error"      // the tree could not be read
)

// VerifyResult is the check of one installed plugin.
type VerifyResult struct {
	Name   string
	Status string
	// Recorded and Current are the tree hashes at install and now.
	Recorded, Current string
	// ManifestChanged is set when plugin.toml differs from the approved one.
	ManifestChanged bool
	Diff            treehash.Diff
	Err             error
}

// Failed reports whether the result should make verify exit non-zero.
func (r VerifyResult) Failed() bool {
	return r.Status == VerifyModified || r.Status == VerifyMissing || r.Status == VerifyError
}

// MaxTreeFile bounds the recorded file list read back for a diff.
const MaxTreeFile = 64 << 20

// Verify re-hashes a plugin's installed tree and compares it with what was
// recorded at install: which files were modified, added or removed, and
// whether plugin.toml still is the one the user approved.
func Verify(paths home.Paths, p *lockfile.Plugin) VerifyResult {
	r := VerifyResult{Name: p.Name, Recorded: p.TreeHash, Diff: treehash.Diff{Modified: []string{}, Added: []string{}, Missing: []string{}}}
	dir := paths.PluginDir(p.Name)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		r.Status = VerifyMissing
		r.Err = fmt.Errorf("%s is gone: reinstall it", dir)
		return r
	}
	if data, err := manifest.ReadFile(filepath.Join(dir, manifest.FileName)); err != nil {
		r.ManifestChanged = true
	} else if p.ManifestEdited(data) {
		r.ManifestChanged = true
	}
	tree, err := treehash.Hash(dir, treehash.Options{AllowExternalLinks: true})
	if err != nil {
		r.Status, r.Err = VerifyError, err
		return r
	}
	r.Current = tree.Hash
	switch {
	case p.KindInfo().Live:
		r.Status = VerifyLinked
	case p.TreeHash == "":
		r.Status = VerifyUnrecorded
		return r
	case tree.Hash == p.TreeHash && !r.ManifestChanged:
		r.Status = VerifyOK
		return r
	default:
		r.Status = VerifyModified
	}
	if was, err := readTreeFile(paths.TreeFile(p.Name)); err == nil {
		r.Diff = treehash.Compare(was.Entries, tree.Entries)
	} else if r.Status == VerifyModified {
		r.Err = fmt.Errorf("the file list recorded at install is unreadable (%v): cannot say which files changed", err)
	}
	return r
}

func readTreeFile(path string) (*treehash.Tree, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var t treehash.Tree
	dec := json.NewDecoder(io.LimitReader(f, MaxTreeFile))
	if err := dec.Decode(&t); err != nil {
		return nil, err
	}
	return &t, nil
}
