package provenance_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/provenance"
	"github.com/corvidlabs/fledge-go/provenance/provenancetest"
)

// rawEvidence reads the tag and its commit byte for byte from dir, as
// install does before the .git directory goes.
func rawEvidence(t *testing.T, dir, tag string) []byte {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := repo.Reference(plumbing.NewTagReferenceName(tag), true)
	if err != nil {
		t.Fatal(err)
	}
	to, err := repo.Storer.EncodedObject(plumbing.TagObject, ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	tg, err := repo.TagObject(ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	co, err := repo.Storer.EncodedObject(plumbing.CommitObject, tg.Target)
	if err != nil {
		t.Fatal(err)
	}
	data, err := provenance.EncodeEvidence(co, to)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The git tree of a directory is the one git computes, with executables,
// symlinks, nested and empty directories; evidence carried away from the
// repository verifies as the repository does, and covers only its own
// commit and tree.
func TestEvidenceCoversExactlyItsTree(t *testing.T) {
	keys := t.TempDir()
	ann := provenancetest.NewSSHKey(t, keys, "ann")
	r := provenancetest.NewRepo(t, filepath.Join(t.TempDir(), "p"), map[string]string{
		"a.txt": "a\n", "bin/run": "#!/bin/sh\n", "b/c/d.txt": "d\n", "b-c": "x", "b.c": "y",
	})
	if err := os.Chmod(filepath.Join(r.Dir, "bin", "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b/c/d.txt", filepath.Join(r.Dir, "link")); err != nil {
		t.Fatal(err)
	}
	r.SignWithSSH(ann)
	r.Commit("second", nil, "-S")
	r.Git("tag", "-s", "-m", "1.0.0", "v1.0.0")
	if err := os.MkdirAll(filepath.Join(r.Dir, "empty", "dirs"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := provenance.GitTree(r.Dir)
	if want := strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}")); err != nil || got.String() != want {
		t.Fatalf("GitTree = %s, %v; git says %s", got, err, want)
	}

	data := rawEvidence(t, r.Dir, "v1.0.0")
	s, err := provenance.DecodeEvidence(data)
	if err != nil {
		t.Fatal(err)
	}
	head := r.Head()
	if err := provenance.Covers(s, head, r.Dir); err != nil {
		t.Fatal(err)
	}
	res, err := provenance.Verify(s, nil)
	if err != nil || res.Provenance.Level != lockfile.LevelSignedTag || res.Provenance.Signer != ann.Fingerprint {
		t.Fatalf("verified %+v, %v", res.Provenance, err)
	}

	if err := provenance.Covers(s, strings.Repeat("a", 40), r.Dir); !errors.Is(err, provenance.ErrNoEvidence) || !strings.Contains(err.Error(), head) {
		t.Errorf("another commit: %v", err)
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := provenance.Covers(s, head, r.Dir); !errors.Is(err, provenance.ErrNoEvidence) || !strings.Contains(err.Error(), "git tree") {
		t.Errorf("a changed file: %v", err)
	}
	os.WriteFile(filepath.Join(r.Dir, "a.txt"), []byte("a\n"), 0o644)
	os.Chmod(filepath.Join(r.Dir, "bin", "run"), 0o644)
	if err := provenance.Covers(s, head, r.Dir); !errors.Is(err, provenance.ErrNoEvidence) {
		t.Errorf("a lost executable bit: %v", err)
	}

	for name, bad := range map[string][]byte{
		"truncated":   data[:len(data)-10],
		"no commit":   data[len(data)-0:],
		"garbage":     []byte("blob 3\x00abc"),
		"two commits": append(append([]byte{}, data...), data...),
		"too large":   make([]byte, provenance.MaxEvidenceBytes+1),
	} {
		if _, err := provenance.DecodeEvidence(bad); !errors.Is(err, provenance.ErrNoEvidence) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// OpenPGP signatures verify from carried evidence as from the repository,
// the tag's and (signed with -S) the commit's.
func TestEvidenceOfOpenPGPSignatures(t *testing.T) {
	dir := t.TempDir()
	g := provenancetest.NewGPG(t)
	ann := g.NewKey("Ann <ann@example.com>", "1y", "")
	r := provenancetest.NewRepo(t, filepath.Join(dir, "repo"), map[string]string{"a": "1"})
	r.SignWithGPG(g, ann, "")
	r.Commit("signed", map[string]string{"a": "2"}, "-S")
	r.Git("tag", "-s", "-m", "v1", "v1.0.0")
	trusted := load(t, g.Export(ann, filepath.Join(dir, "ann.asc")))
	s, err := provenance.DecodeEvidence(rawEvidence(t, r.Dir, "v1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	if err := provenance.Covers(s, r.Head(), r.Dir); err != nil {
		t.Fatal(err)
	}
	want := verify(t, objects(t, r.Dir, "v1.0.0"), trusted).Provenance
	if got := verify(t, s, trusted).Provenance; got != want || got.Level != lockfile.LevelSignedTag || got.Signer != ann {
		t.Fatalf("from evidence %+v, from the repository %+v", got, want)
	}
	s.Tag = nil
	if got := verify(t, s, trusted).Provenance; got.Level != lockfile.LevelSignedCommit || got.Signer != ann {
		t.Fatalf("the commit from evidence: %+v", got)
	}
}
