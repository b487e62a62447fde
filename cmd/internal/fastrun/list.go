package fastrun

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/derived"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/runner"
)

// ListCacheKind names the `plugins list --json` document among derived
// files (v2: disabled).
const ListCacheKind = "plugins list --json v2"

// ListKey is what the `plugins list --json` document depends on besides
// plugins.toml and config.toml, as they are now: the document is a pure
// function of those two, the admin policy's files (they narrow the trusted
// owners, so tiers), the fledge-<name> programs on PATH, what the kernel
// offers and FLEDGE_CONFINE (each plugin's confinement). Scripts and
// agents that list often get the document from a derived file, after
// hashing them (see package derived).
type ListKey struct {
	// Externals are the fledge-<name> programs on PATH.
	Externals []runner.External
	// OK is false when the document may not be kept: a policy file that
	// cannot be hashed, or seeds, read from directories the key does not
	// hash.
	OK                  bool
	ext, policy, confin derived.Digest
}

// NewListKey reads what the document depends on besides plugins.toml and
// config.toml.
func NewListKey(paths home.Paths, getenv func(string) string, systemPolicy string) ListKey {
	k := ListKey{Externals: runner.Externals(paths, getenv("PATH"))}
	var b strings.Builder
	for _, e := range k.Externals {
		b.WriteString(e.Name)
		b.WriteByte(0)
		b.WriteString(e.Path)
		b.WriteByte(0)
	}
	k.ext = derived.Sum([]byte(b.String()))
	k.policy, k.OK = policyDigest(getenv, systemPolicy)
	k.confin = derived.Sum(fmt.Appendf(nil, "landlock %d, off %q", confine.Detect().ABI, UnconfinedBy(getenv)))
	if len(SeedDirs(getenv)) > 0 {
		k.OK = false
	}
	return k
}

// File is the derived file of the document rendered by the binary named
// exe (derived.IdentityOf) from plugins.toml and config.toml with these
// digests.
func (k ListKey) File(paths home.Paths, exe string, plugins, config derived.Digest) derived.File {
	return derived.NewFor(exe, paths.ListCacheFile(), ListCacheKind, plugins, config, k.ext, k.policy, k.confin)
}

// ServeList writes the stored document to w when one is kept for the
// inputs as they are now, rendered by the binary named exe; hit is false
// (and nothing written) when there is none.
func (k ListKey) ServeList(w io.Writer, paths home.Paths, exe string) (hit bool, err error) {
	if !k.OK {
		return false, nil
	}
	pd, ok1 := derived.DigestFileMemo(paths.PluginsDigestFile(), paths.PluginsFile(), lockfile.MaxSize)
	cd, ok2 := derived.DigestFile(paths.ConfigFile(), config.MaxSize)
	if !ok1 || !ok2 {
		return false, nil
	}
	return k.File(paths, exe, pd, cd).CopyTo(w)
}

// policyDigest is one digest of where the admin policy is read besides
// config.toml: the system file's path and contents, its drop-ins' names and
// contents, FLEDGE_POLICY and the contents of each file it names (a
// missing file digests as empty). It is false when a file cannot be
// hashed (or the drop-in directory listed); then nothing is cached.
func policyDigest(getenv func(string) string, systemPolicy string) (derived.Digest, bool) {
	env := getenv(policy.EnvPolicy)
	sums := []byte(systemPolicy + "\x00" + env + "\x00")
	files := filepath.SplitList(env)
	if systemPolicy != "" {
		dropIns, _, err := policy.DropIns(systemPolicy)
		if err != nil {
			return derived.Digest{}, false
		}
		sums = append(sums, strings.Join(dropIns, "\x00")+"\x00"...)
		files = append(append([]string{systemPolicy}, dropIns...), files...)
	}
	for _, name := range files {
		if name == "" {
			continue
		}
		d, ok := derived.DigestFile(name, policy.MaxSize)
		if !ok {
			return derived.Digest{}, false
		}
		sums = append(sums, d[:]...)
	}
	return derived.Sum(sums), true
}
