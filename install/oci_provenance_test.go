package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"oras.land/oras-go/v2/content/oci"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/ociartifact/ocitest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/provenance"
	"github.com/corvidlabs/fledge-go/provenance/provenancetest"
	"github.com/corvidlabs/fledge-go/settings"
)

// ociProv is a signed plugin installed from git on an origin machine, and
// a registry to mirror it to, under a policy that requires signatures.
type ociProv struct {
	origin  *env
	repo    *provenancetest.Repo
	url     string
	want    *lockfile.File
	reg     *ocitest.Registry
	remote  ociartifact.Remote
	polText string
}

func newOCIProv(t *testing.T) *ociProv {
	t.Helper()
	keys := t.TempDir()
	ann := provenancetest.NewSSHKey(t, keys, "ann")
	allowed := provenancetest.AllowedSigners(t, filepath.Join(keys, "allowed"), `ann@example.com `+ann.Public)
	o := &ociProv{origin: newEnv(t), reg: ocitest.Start(t, ocitest.Options{})}
	o.polText = "[provenance]\nallowed_signers = [\"" + allowed + "\"]\nrequire = \"signed\"\n"
	o.remote = ociartifact.Remote{HTTP: o.reg.HTTP, DockerConfig: o.reg.DockerConfig}
	o.repo, o.url = signedPlugin(t, "1.0.0")
	o.repo.SignWithSSH(ann)
	o.repo.Git("tag", "-s", "-m", "0.9.0", "v0.9.0")
	release(o.repo, "1.0.0", true)
	in := o.installer(t, o.origin, "")
	if _, err := in.Install(context.Background(), o.url+"@v1.0.0"); err != nil {
		t.Fatal(err)
	}
	var err error
	if o.want, err = o.origin.store.Load(); err != nil {
		t.Fatal(err)
	}
	if p := sigEntry(t, o.origin).Provenance; p.LevelOf() != lockfile.LevelSignedTag || p.Signer != ann.Fingerprint || p.VouchedBy != allowed {
		t.Fatalf("the origin install recorded %+v", p)
	}
	return o
}

// installer is e's, under the policy, with mirrors (a policy [mirrors]
// table's lines) added to it.
func (o *ociProv) installer(t *testing.T, e *env, mirrors string) *Installer {
	in := e.installer(Consent{Yes: true})
	in.Settings = settings.New(nil, mustPolicy(t, o.polText+mirrors))
	in.OCI = o.remote
	return in
}

func (o *ociProv) toRegistry(in *Installer, prefix string) Destination {
	return func(ctx context.Context, name string) (ociartifact.Target, string, string, error) {
		r, err := in.OCI.Repository(ctx, o.reg.Host, prefix+"/"+name)
		return r, "", "oci://" + o.reg.Host + "/" + prefix + "/" + name, err
	}
}

// A signed plugin mirrored to a registry carries its signed objects: a
// second machine syncs the origin's plugins.toml through the mirror (the
// origin gone) under require = "signed", and records who signed it
// exactly as the origin did.
func TestSyncThroughAMirrorKeepsProvenance(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	ctx := context.Background()
	o := newOCIProv(t)
	res, err := o.installer(t, o.origin, "").Mirror(ctx, nil, o.toRegistry(o.installer(t, o.origin, ""), "team"))
	if err != nil || len(res) != 1 || res[0].Err != nil || !res[0].Signed || !res[0].Refetched {
		t.Fatalf("mirror: %+v %v", res, err)
	}
	if err := os.RemoveAll(o.repo.Dir); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	mirrors := "[mirrors]\n\"" + strings.TrimSuffix(o.url, "fledge-plugin-sig") + "*\" = \"oci://" + o.reg.Host + "/team/*\"\n"
	out, err := (&Syncer{Installer: o.installer(t, e, mirrors)}).Sync(ctx, o.want)
	if err != nil || len(out) != 1 || out[0].Err != nil {
		t.Fatalf("sync through the mirror: %+v %v\n%s", out, err, e.log)
	}
	got, want := sigEntry(t, e), sigEntry(t, o.origin)
	if *got.Provenance != *want.Provenance || got.Mirror == "" || got.Commit != want.Commit {
		t.Fatalf("synced %+v (mirror %q)\norigin %+v", got.Provenance, got.Mirror, want.Provenance)
	}

	// A mirror that dropped the objects serves a downgrade, which sync
	// refuses without any require, saying what is missing.
	team, err := o.remote.Repository(ctx, o.reg.Host, "team/fledge-plugin-sig")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	pulled, err := ociartifact.Pull(ctx, team, want.Commit, dir, ociartifact.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := o.remote.Repository(ctx, o.reg.Host, "bare/fledge-plugin-sig")
	if err != nil {
		t.Fatal(err)
	}
	info := pulled.Info
	info.Signature = nil
	if _, err := ociartifact.Push(ctx, bare, dir, info, []string{want.Commit}, ociartifact.Limits{}); err != nil {
		t.Fatal(err)
	}
	e3 := newEnv(t)
	in := e3.installer(Consent{Yes: true})
	in.OCI = o.remote
	in.Settings = settings.New(nil, mustPolicy(t, strings.Replace(mirrors, "/team/", "/bare/", 1)))
	out, err = (&Syncer{Installer: in}).Sync(ctx, o.want)
	var pe *ProvenanceError
	if err != nil || len(out) != 1 || !errors.As(out[0].Err, &pe) || !pe.Downgrade || !strings.Contains(pe.Error(), "carries no signed git objects") {
		t.Fatalf("sync through a mirror without the objects: %+v %v", out, err)
	}
	if f, _ := e3.store.Load(); len(f.Plugins) != 0 {
		t.Error("installed anyway")
	}

	// Installed from the mirror directly, it is signed as well.
	e2 := newEnv(t)
	if _, err := o.installer(t, e2, "").Install(ctx, "oci://"+o.reg.Host+"/team/fledge-plugin-sig:1.0.0"); err != nil {
		t.Fatal(err)
	}
	if p := sigEntry(t, e2).Provenance; *p != *want.Provenance {
		t.Fatalf("installed from the mirror: %+v, the origin %+v", p, want.Provenance)
	}
}

// A bundle carries the signed objects too: an offline sync from it meets
// require = "signed" with the origin's record.
func TestSyncFromABundleKeepsProvenance(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	ctx := context.Background()
	o := newOCIProv(t)
	store, err := oci.NewWithContext(ctx, filepath.Join(t.TempDir(), "bundle"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := o.installer(t, o.origin, "").Mirror(ctx, nil, func(context.Context, string) (ociartifact.Target, string, string, error) {
		return store, "fledge-plugin-sig:", "the bundle", nil
	})
	if err != nil || len(res) != 1 || res[0].Err != nil || !res[0].Signed {
		t.Fatalf("bundle: %+v %v", res, err)
	}
	os.RemoveAll(o.repo.Dir)
	e := newEnv(t)
	out, err := (&Syncer{Installer: o.installer(t, e, ""), From: store}).Sync(ctx, o.want)
	if err != nil || len(out) != 1 || out[0].Err != nil {
		t.Fatalf("sync from the bundle: %+v %v\n%s", out, err, e.log)
	}
	if got, want := sigEntry(t, e).Provenance, sigEntry(t, o.origin).Provenance; *got != *want {
		t.Fatalf("synced %+v, the origin %+v", got, want)
	}
}

// Signed objects that do not cover what an artifact holds vouch for
// nothing: a tree changed after mirroring (the objects kept), and the
// objects of another commit, are unsigned, which require = "signed"
// refuses, saying why.
func TestAMirrorsSignatureMustCoverItsTree(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	ctx := context.Background()
	o := newOCIProv(t)
	store, err := oci.NewWithContext(ctx, filepath.Join(t.TempDir(), "layout"))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := o.installer(t, o.origin, "").Mirror(ctx, nil, func(context.Context, string) (ociartifact.Target, string, string, error) {
		return store, "", "layout", nil
	}); err != nil || res[0].Err != nil {
		t.Fatalf("mirror: %+v %v", res, err)
	}
	other := evidenceOf(t, o.repo, "v0.9.0")
	for _, c := range []struct {
		name   string
		change func(info *ociartifact.Info, dir string)
		want   string
	}{
		{"a changed tree", func(_ *ociartifact.Info, dir string) {
			writeFile(t, filepath.Join(dir, "README.md"), "changed after signing\n", 0o644)
		}, "git tree"},
		{"another commit's objects", func(info *ociartifact.Info, _ string) {
			info.Signature = other
		}, "not the commit"},
		{"no objects", func(info *ociartifact.Info, _ string) { info.Signature = nil }, "carries no signed git objects"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tree")
			pulled, err := ociartifact.Pull(ctx, store, "1.0.0", dir, ociartifact.Limits{})
			if err != nil || len(pulled.Info.Signature) == 0 {
				t.Fatalf("pull the mirrored artifact: %+v %v", pulled, err)
			}
			info := pulled.Info
			c.change(&info, dir)
			repo := "forged/" + strings.NewReplacer(" ", "-", "'", "").Replace(c.name)
			target, err := o.remote.Repository(ctx, o.reg.Host, repo)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ociartifact.Push(ctx, target, dir, info, []string{"1.0.0"}, ociartifact.Limits{}); err != nil {
				t.Fatal(err)
			}
			e := newEnv(t)
			_, err = o.installer(t, e, "").Install(ctx, "oci://"+o.reg.Host+"/"+repo+":1.0.0")
			var de *policy.DeniedError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), "it is unsigned") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a denial saying %q", err, c.want)
			}
			if f, _ := e.store.Load(); len(f.Plugins) != 0 {
				t.Error("installed anyway")
			}
		})
	}
}

// evidenceOf is what a fetch of tag in r carries.
func evidenceOf(t *testing.T, r *provenancetest.Repo, tag string) []byte {
	t.Helper()
	tagObj := plumbing.NewHash(strings.TrimSpace(r.Git("rev-parse", "refs/tags/"+tag)))
	commit := plumbing.NewHash(strings.TrimSpace(r.Git("rev-parse", tag+"^{commit}")))
	objs, err := gitfetch.Raw(r.Dir, commit, tagObj)
	if err != nil {
		t.Fatal(err)
	}
	data, err := provenance.EncodeEvidence(objs...)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
