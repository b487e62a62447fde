package publish

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/provenance"
	"github.com/corvidlabs/fledge-go/provenance/provenancetest"
	"github.com/corvidlabs/fledge-go/publish/publishtest"
)

// gitWith is the git binary with a global configuration of the test's own
// (body), so the user's signing setup never leaks in.
func gitWith(t *testing.T, body string) GitRunner {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return ExecGit(append(os.Environ(), "GIT_CONFIG_GLOBAL="+cfg, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_COMMITTER_NAME=Pub", "GIT_COMMITTER_EMAIL=pub@example.com"))
}

func TestPublishSignsTheReleaseTag(t *testing.T) {
	t.Parallel()
	key := provenancetest.NewSSHKey(t, t.TempDir(), "pub")
	f := publishtest.New(t)
	dir := pluginDir(t)
	o := opts(f)
	o.Git = gitWith(t, "[gpg]\n\tformat = ssh\n[user]\n\tsigningkey = "+key.Path+"\n")
	var log bytes.Buffer
	res, err := Publish(context.Background(), o, Request{Dir: dir, Name: "fledge-plugin-x", Author: testAuthor, Tag: "v0.1.0", Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tag != "v0.1.0" || !res.TagSigned || res.TagExisted || !strings.Contains(log.String(), "Release tag v0.1.0 is signed") {
		t.Fatalf("result %+v, log %q", res, log.String())
	}
	// On the remote: the tag, at the commit pushed, signed by the key.
	r, err := git.PlainOpen(f.Repo("octo", "fledge-plugin-x").Bare)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := r.Tag("v0.1.0")
	if err != nil {
		t.Fatalf("the tag was not pushed: %v", err)
	}
	to, err := r.TagObject(ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := to.Commit()
	got, err := provenance.Verify(provenance.Signed{Tag: to, Commit: c}, nil)
	if err != nil || got.Provenance.Level != lockfile.LevelSignedTag || got.Provenance.Signer != key.Fingerprint || c.Hash.String() != res.Commit {
		t.Fatalf("pushed tag: %+v, %v", got, err)
	}
	if tag, signed, err := LatestTag(dir); tag != "v0.1.0" || !signed || err != nil {
		t.Errorf("LatestTag = %q, %v, %v", tag, signed, err)
	}

	// Published again: the tag is kept as it is.
	res, err = Publish(context.Background(), o, Request{Dir: dir, Name: "fledge-plugin-x", Author: testAuthor, Tag: "v0.1.0"})
	if err != nil || !res.TagExisted || !res.TagSigned {
		t.Fatalf("again: %+v, %v", res, err)
	}
	// A new commit under the same version: the tag names another commit.
	if err := os.WriteFile(filepath.Join(dir, "NEW"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Publish(context.Background(), o, Request{Dir: dir, Name: "fledge-plugin-x", Author: testAuthor, Tag: "v0.1.0", CommitMessage: "more"})
	if err != nil || res.Tag != "" || !strings.Contains(res.TagNote, "raise the version in plugin.toml") || !res.Committed {
		t.Fatalf("tag at another commit: %+v, %v", res, err)
	}
}

func TestPublishSaysHowToSign(t *testing.T) {
	t.Parallel()
	f := publishtest.New(t)
	dir := pluginDir(t)
	o := opts(f)
	o.Git = gitWith(t, "")
	var log bytes.Buffer
	res, err := Publish(context.Background(), o, Request{Dir: dir, Name: "fledge-plugin-x", Author: testAuthor, Tag: "v0.1.0", Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if res.TagSigned || !strings.Contains(log.String(), "Release tag v0.1.0 is not signed") || !strings.Contains(log.String(), "gpg.format ssh") {
		t.Fatalf("result %+v, log %q", res, log.String())
	}
	if tag, signed, _ := LatestTag(dir); tag != "v0.1.0" || signed {
		t.Errorf("LatestTag = %q, %v", tag, signed)
	}
	r, _ := git.PlainOpen(f.Repo("octo", "fledge-plugin-x").Bare)
	if _, err := r.Reference(plumbing.NewTagReferenceName("v0.1.0"), false); err != nil {
		t.Errorf("the unsigned tag was not pushed: %v", err)
	}
}
