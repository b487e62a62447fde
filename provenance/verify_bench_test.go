package provenance_test

import (
	"path/filepath"
	"testing"

	"github.com/corvidlabs/fledge-go/provenance"
	"github.com/corvidlabs/fledge-go/provenance/provenancetest"
	"github.com/corvidlabs/fledge-go/treehash"
)

// The cost of verifying one fetched revision: its tag's and commit's
// signatures checked against the trusted files (loaded once per install,
// counted here per verification).
func benchVerify(b *testing.B, tag string, setup func(dir string, r *provenancetest.Repo) []string) {
	dir := b.TempDir()
	r := provenancetest.NewRepo(b, filepath.Join(dir, "repo"), map[string]string{"plugin.toml": "x"})
	files := setup(dir, r)
	s := objects(b, r.Dir, tag)
	b.ResetTimer()
	for b.Loop() {
		trusted, err := provenance.Load(files)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := provenance.Verify(s, trusted); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifySSH(b *testing.B) {
	benchVerify(b, "v1", func(dir string, r *provenancetest.Repo) []string {
		k := provenancetest.NewSSHKey(b, dir, "k")
		r.SignWithSSH(k)
		r.Git("tag", "-s", "-m", "v1", "v1")
		return []string{provenancetest.AllowedSigners(b, filepath.Join(dir, "allowed"), "k@example.com "+k.Public)}
	})
}

func BenchmarkVerifyOpenPGP(b *testing.B) {
	benchVerify(b, "v1", func(dir string, r *provenancetest.Repo) []string {
		g := provenancetest.NewGPG(b)
		fpr := g.NewKey("K <k@example.com>", "1y", "")
		r.SignWithGPG(g, fpr, "")
		r.Git("tag", "-s", "-m", "v1", "v1")
		return []string{g.Export(fpr, filepath.Join(dir, "k.asc"))}
	})
}

func BenchmarkVerifyUnsigned(b *testing.B) {
	benchVerify(b, "v1", func(dir string, r *provenancetest.Repo) []string {
		r.Git("tag", "-a", "-m", "v1", "v1")
		return nil
	})
}

// What an install from OCI adds to hashing the tree it pulled: the git
// tree of the same files (to check the carried commit covers them),
// against the content hash every install computes (treehash).
func BenchmarkGitTreeOfTheHelloExample(b *testing.B) {
	dir := filepath.Join("..", "examples", "fledge-plugin-hello")
	for b.Loop() {
		if _, err := provenance.GitTree(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTreeHashOfTheHelloExample(b *testing.B) {
	dir := filepath.Join("..", "examples", "fledge-plugin-hello")
	for b.Loop() {
		if _, err := treehash.Hash(dir, treehash.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
