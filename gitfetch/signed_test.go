package gitfetch

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/provenance"
	"github.com/corvidlabs/fledge-go/provenance/provenancetest"
)

// Signed reads the tag and commit a checkout fetched, with their
// signatures intact, whether the objects came over a transport (a clone)
// or were read in place (a local source): both verify.
func TestSignedObjectsOfACheckout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := provenancetest.NewSSHKey(t, dir, "k")
	r := provenancetest.NewRepo(t, filepath.Join(dir, "repo"), map[string]string{"plugin.toml": "x"})
	r.SignWithSSH(key)
	r.Commit("signed", map[string]string{"plugin.toml": "y"}, "-S")
	r.Git("tag", "-s", "-m", "v1", "v1.0.0")
	ctx := context.Background()
	for name, url := range map[string]string{
		"local": "file://" + filepath.ToSlash(r.Dir),
		"http":  httpGitServer(t, r.Dir, pace{}, pace{}),
	} {
		t.Run(name, func(t *testing.T) {
			refs, err := ListRefs(ctx, url, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for ref, level := range map[string]string{"v1.0.0": lockfile.LevelSignedTag, "main": lockfile.LevelSignedCommit} {
				rev, err := Resolve(refs, ref)
				if err != nil {
					t.Fatal(err)
				}
				tree := filepath.Join(t.TempDir(), "tree")
				commit, err := Checkout(ctx, url, rev, tree, Options{})
				if err != nil {
					t.Fatal(err)
				}
				tag, c, err := Signed(tree, rev, commit)
				if err != nil {
					t.Fatal(err)
				}
				if (tag != nil) != (level == lockfile.LevelSignedTag) || c.Hash.String() != commit {
					t.Fatalf("%s: tag %v, commit %s (checked out %s)", ref, tag, c.Hash, commit)
				}
				res, err := provenance.Verify(provenance.Signed{Tag: tag, Commit: c}, nil)
				if err != nil || res.Provenance.Level != level || res.Provenance.Signer != key.Fingerprint {
					t.Errorf("%s: %+v, %v", ref, res, err)
				}
			}
		})
	}
}
