package provenance_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/provenance"
	"github.com/corvidlabs/fledge-go/provenance/provenancetest"
)

// objects reads what a fetch of tag (or of HEAD, for "") would verify.
func objects(t testing.TB, dir, tag string) provenance.Signed {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s provenance.Signed
	h, err := repo.ResolveRevision("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if tag != "" {
		ref, err := repo.Reference(plumbing.NewTagReferenceName(tag), true)
		if err != nil {
			t.Fatal(err)
		}
		if to, err := repo.TagObject(ref.Hash()); err == nil {
			s.Tag = to
			c, err := to.Commit()
			if err != nil {
				t.Fatal(err)
			}
			s.Commit = c
			return s
		}
		hh := ref.Hash()
		h = &hh
	}
	if s.Commit, err = repo.CommitObject(*h); err != nil {
		t.Fatal(err)
	}
	return s
}

func load(t *testing.T, files ...string) *provenance.Signers {
	t.Helper()
	s, err := provenance.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func verify(t *testing.T, s provenance.Signed, trusted *provenance.Signers) provenance.Result {
	t.Helper()
	res, err := provenance.Verify(s, trusted)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return res
}

func TestSSHSignedTagAndCommit(t *testing.T) {
	dir := t.TempDir()
	ann := provenancetest.NewSSHKey(t, dir, "ann")
	bob := provenancetest.NewSSHKey(t, dir, "bob")
	allowed := provenancetest.AllowedSigners(t, filepath.Join(dir, "allowed"),
		`"ann@example.com,ann@corp.example" namespaces="file,git" `+ann.Public)
	r := provenancetest.NewRepo(t, filepath.Join(dir, "repo"), map[string]string{"a": "1"})
	r.SignWithSSH(ann)
	r.Git("tag", "-s", "-m", "v1", "v1.0.0")
	r.Commit("signed", map[string]string{"a": "2"}, "-S")
	r.Git("tag", "v1.1.0") // lightweight, on a signed commit
	r.Git("tag", "-a", "-m", "plain", "v1.2.0")
	r.Git("config", "commit.gpgsign", "false")
	r.Commit("plain", map[string]string{"a": "3"})
	r.Git("tag", "-a", "-m", "plain", "v1.3.0")

	trusted := load(t, allowed)
	got := verify(t, objects(t, r.Dir, "v1.0.0"), trusted).Provenance
	want := lockfile.Provenance{Level: lockfile.LevelSignedTag, Signer: ann.Fingerprint, Principal: "ann@example.com,ann@corp.example", Format: "ssh", VouchedBy: allowed}
	want.Object = got.Object
	if got != want || got.Object == "" {
		t.Fatalf("signed tag: got %+v, want %+v", got, want)
	}
	for _, tag := range []string{"v1.1.0", "v1.2.0"} {
		got = verify(t, objects(t, r.Dir, tag), trusted).Provenance
		if got.Level != lockfile.LevelSignedCommit || got.Signer != ann.Fingerprint || got.VouchedBy != allowed {
			t.Errorf("%s (unsigned tag, signed commit): got %+v", tag, got)
		}
	}
	if got = verify(t, objects(t, r.Dir, "v1.3.0"), trusted).Provenance; got != (lockfile.Provenance{Level: lockfile.LevelUnsigned}) {
		t.Errorf("unsigned: got %+v", got)
	}

	// A key no file lists: its signature still checks out against the
	// key it carries, and is pinned on first use.
	r.SignWithSSH(bob)
	r.Git("tag", "-s", "-m", "bob", "v2.0.0")
	got = verify(t, objects(t, r.Dir, "v2.0.0"), trusted).Provenance
	if got.Level != lockfile.LevelSignedTag || got.Signer != bob.Fingerprint || got.VouchedBy != lockfile.VouchedFirstUse || got.Principal != "" {
		t.Errorf("unknown SSH key: got %+v", got)
	}
	if got = verify(t, objects(t, r.Dir, "v2.0.0"), nil).Provenance; got.VouchedBy != lockfile.VouchedFirstUse {
		t.Errorf("no trusted signers: got %+v", got)
	}
}

// A signed tag object whose message was changed after signing: the key
// is valid, the content is not what it signed.
func TestForgedSignatureIsAnError(t *testing.T) {
	dir := t.TempDir()
	ann := provenancetest.NewSSHKey(t, dir, "ann")
	r := provenancetest.NewRepo(t, filepath.Join(dir, "repo"), map[string]string{"a": "1"})
	r.SignWithSSH(ann)
	r.Git("tag", "-s", "-m", "the real release", "v1.0.0")
	body := r.Git("cat-file", "tag", "v1.0.0")
	forged := strings.Replace(body, "the real release", "the forged release", 1)
	h := writeObject(t, r, "tag", forged)
	r.Git("update-ref", "refs/tags/v1.0.1", h)

	_, err := provenance.Verify(objects(t, r.Dir, "v1.0.1"), load(t))
	var bad *provenance.BadSignatureError
	if !errors.As(err, &bad) || bad.Signer != ann.Fingerprint || !strings.Contains(err.Error(), "does not verify") {
		t.Fatalf("forged tag: got %v", err)
	}

	// The same for a commit.
	r.Commit("signed", map[string]string{"a": "2"}, "-S")
	cbody := r.Git("cat-file", "commit", "HEAD")
	fc := writeObject(t, r, "commit", strings.Replace(cbody, "signed", "SIGNED", 1))
	r.Git("update-ref", "refs/tags/forged-commit", fc)
	if _, err := provenance.Verify(objects(t, r.Dir, "forged-commit"), nil); !errors.As(err, &bad) {
		t.Fatalf("forged commit: got %v", err)
	}
}

func writeObject(t *testing.T, r *provenancetest.Repo, kind, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "obj")
	provenancetest.AllowedSigners(t, p, strings.TrimSuffix(body, "\n"))
	return strings.TrimSpace(r.Git("hash-object", "-t", kind, "-w", "--literally", p))
}

func TestAllowedSignersOptionsLimitAKey(t *testing.T) {
	dir := t.TempDir()
	ann := provenancetest.NewSSHKey(t, dir, "ann")
	r := provenancetest.NewRepo(t, filepath.Join(dir, "repo"), map[string]string{"a": "1"})
	r.SignWithSSH(ann)
	r.Git("tag", "-s", "-m", "v1", "v1.0.0")
	s := objects(t, r.Dir, "v1.0.0")

	for _, tc := range []struct{ name, line, note string }{
		{"other namespace", `ann@example.com namespaces="file" ` + ann.Public, `only for namespaces "file"`},
		{"expired", `ann@example.com valid-before="20200101Z" ` + ann.Public, "valid only before 2020-01-01"},
		{"not yet valid", `ann@example.com valid-after="29990101" ` + ann.Public, "valid only after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := provenancetest.AllowedSigners(t, filepath.Join(t.TempDir(), "allowed"), tc.line)
			res := verify(t, s, load(t, f))
			if res.Provenance.Level != lockfile.LevelUnsigned || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], tc.note) || !strings.Contains(res.Notes[0], ann.Fingerprint) {
				t.Fatalf("got %+v", res)
			}
		})
	}
	f := provenancetest.AllowedSigners(t, filepath.Join(dir, "ok"), `*@example.com namespaces="g?t",valid-after="20200101" `+ann.Public)
	if got := verify(t, s, load(t, f)).Provenance; got.Principal != "*@example.com" || got.VouchedBy != f {
		t.Fatalf("wildcard namespace: got %+v", got)
	}
}

func TestAllowedSignersErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	ann := provenancetest.NewSSHKey(t, dir, "ann")
	for _, tc := range []struct{ line, want string }{
		{`ann cert-authority ` + ann.Public, "cert-authority lines are not supported"},
		{`ann valid-after="2020" ` + ann.Public, "want YYYYMMDD"},
		{`ann no-touch-required ` + ann.Public, `unknown option "no-touch-required"`},
		{`ann`, "the key is missing"},
		{`"ann ` + ann.Public, "never closed"},
		{`ann ssh-ed25519 AAAAnotbase64!`, "the key of"},
	} {
		f := provenancetest.AllowedSigners(t, filepath.Join(dir, "allowed"), "# people", "", tc.line)
		_, err := provenance.Load([]string{f})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), f+", line 3") {
			t.Errorf("%q: got %v, want an error naming line 3 and %q", tc.line, err, tc.want)
		}
	}
	if _, err := provenance.Load([]string{filepath.Join(dir, "missing")}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: got %v", err)
	}
}

func TestOpenPGPSignatures(t *testing.T) {
	dir := t.TempDir()
	g := provenancetest.NewGPG(t)
	ann := g.NewKey("Ann <ann@example.com>", "1y", "")
	old := g.NewKey("Old <old@example.com>", "1d", "20200101T000000")
	gone := g.NewKey("Gone <gone@example.com>", "1y", "")
	r := provenancetest.NewRepo(t, filepath.Join(dir, "repo"), map[string]string{"a": "1"})
	r.SignWithGPG(g, ann, "")
	r.Git("tag", "-s", "-m", "v1", "v1.0.0")
	r.Commit("signed", map[string]string{"a": "2"}, "-S")
	r.Git("tag", "v1.1.0")
	r.SignWithGPG(g, old, g.Wrapper("20200101T120000"))
	r.Git("tag", "-s", "-m", "old", "v2.0.0")
	r.SignWithGPG(g, gone, "")
	r.Git("config", "--unset", "gpg.program")
	r.Git("tag", "-s", "-m", "gone", "v3.0.0")

	annKey := g.Export(ann, filepath.Join(dir, "ann.asc"))
	trusted := load(t, annKey, g.Export(old, filepath.Join(dir, "old.asc")))
	got := verify(t, objects(t, r.Dir, "v1.0.0"), trusted).Provenance
	if got.Level != lockfile.LevelSignedTag || got.Signer != ann || got.Principal != "ann@example.com" || got.Format != "openpgp" || got.VouchedBy != annKey {
		t.Errorf("signed tag: got %+v (want signer %s)", got, ann)
	}
	if got = verify(t, objects(t, r.Dir, "v1.1.0"), trusted).Provenance; got.Level != lockfile.LevelSignedCommit || got.Signer != ann {
		t.Errorf("signed commit: got %+v", got)
	}
	// A key no file holds cannot be checked: unsigned, saying what to add.
	res := verify(t, objects(t, r.Dir, "v1.0.0"), nil)
	if res.Provenance.Level != lockfile.LevelUnsigned || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "gpg --export --armor") {
		t.Errorf("unknown OpenPGP key: got %+v", res)
	}
	// The tag's key expired; the commit under it is still Ann's.
	res = verify(t, objects(t, r.Dir, "v2.0.0"), trusted)
	if res.Provenance.Level != lockfile.LevelSignedCommit || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "expired") {
		t.Errorf("expired key: got %+v", res)
	}
	g.Revoke(gone)
	res = verify(t, objects(t, r.Dir, "v3.0.0"), load(t, g.Export(gone, filepath.Join(dir, "gone.asc"))))
	if res.Provenance.Level != lockfile.LevelUnsigned || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "revoked") {
		t.Errorf("revoked key: got %+v", res)
	}
	if _, err := provenance.Load([]string{provenancetest.AllowedSigners(t, filepath.Join(dir, "bad.asc"), "-----BEGIN PGP PUBLIC KEY BLOCK-----", "junk")}); err == nil || !strings.Contains(err.Error(), "not a valid OpenPGP public key block") {
		t.Errorf("bad key block: got %v", err)
	}
}
