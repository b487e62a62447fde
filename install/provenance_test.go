package install

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/provenance"
	"github.com/corvidlabs/fledge-go/provenance/provenancetest"
	"github.com/corvidlabs/fledge-go/settings"
)

// signedPlugin is a plugin repository made with the git binary, whose
// tags and commits are signed as each test says.
func signedPlugin(t *testing.T, version string) (*provenancetest.Repo, string) {
	t.Helper()
	r := provenancetest.NewRepo(t, filepath.Join(t.TempDir(), "fledge-plugin-sig"), sigFiles(version))
	return r, "file://" + filepath.ToSlash(r.Dir)
}

// sigFiles is the plugin at version; it asks for store, so its install
// shows an approval form.
func sigFiles(version string) map[string]string {
	return updPlugin("sig", version, "\n[capabilities]\nstore = true\n")
}

func release(r *provenancetest.Repo, version string, signed bool) {
	r.Commit("release "+version, sigFiles(version))
	if signed {
		r.Git("tag", "-s", "-m", version, "v"+version)
	} else {
		r.Git("tag", "-a", "-m", version, "v"+version)
	}
}

func grantRecords(t *testing.T, e *env) []grantlog.Record {
	t.Helper()
	var out []grantlog.Record
	if _, err := grantlog.Read(e.paths.GrantLog(), nil, func(r grantlog.Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func sigEntry(t *testing.T, e *env) lockfile.Plugin {
	t.Helper()
	f, err := e.store.Load()
	if err != nil {
		t.Fatal(err)
	}
	p, ok := f.Get("fledge-plugin-sig")
	if !ok {
		t.Fatal("fledge-plugin-sig is not installed")
	}
	return *p
}

func withSigners(files ...string) *settings.Settings {
	return settings.New(&config.Config{Provenance: config.Provenance{AllowedSigners: files}}, nil)
}

// The first install of a revision signed by a key no file lists pins
// that key; an update to an unsigned release, or to one signed by
// another key, is refused and changes nothing, until it is accepted with
// a reason the grant log keeps.
func TestUpdateNeverLowersProvenanceSilently(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	keys := t.TempDir()
	ann := provenancetest.NewSSHKey(t, keys, "ann")
	bob := provenancetest.NewSSHKey(t, keys, "bob")
	r, url := signedPlugin(t, "1.0.0")
	r.SignWithSSH(ann)
	r.Git("tag", "-s", "-m", "1.0.0", "v1.0.0")

	e := newEnv(t)
	in := e.installer(Consent{Yes: true})
	in.Journal = grantlog.New(e.paths.GrantLog())
	var shown *lockfile.Provenance
	in.Consent = Consent{Ask: func(req Request) (Decision, error) {
		shown = req.Provenance
		return Decision{Capabilities: req.Capabilities}, nil
	}}
	ctx := context.Background()
	if _, err := in.Install(ctx, url+"@^1.0"); err != nil {
		t.Fatalf("install: %v\n%s", err, e.log)
	}
	got := sigEntry(t, e).Provenance
	if got == nil || got.Level != lockfile.LevelSignedTag || got.Signer != ann.Fingerprint || got.VouchedBy != lockfile.VouchedFirstUse {
		t.Fatalf("recorded %+v", got)
	}
	if shown == nil || *shown != *got {
		t.Errorf("the approval form was shown %+v, want %+v", shown, got)
	}
	recs := grantRecords(t, e)
	if p := recs[len(recs)-1].Provenance; p == nil || p.From != nil || p.To.Signer != ann.Fingerprint {
		t.Errorf("install's log record: %+v", p)
	}

	in.Consent = Consent{Yes: true}
	u := &Updater{Installer: in}
	refused := func(want error, what string) {
		t.Helper()
		before, _ := os.ReadFile(e.paths.PluginsFile())
		res, err := u.Update(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var pe *ProvenanceError
		if len(res) != 1 || res[0].Status != StatusFailed || !errors.Is(res[0].Err, want) || !errors.As(res[0].Err, &pe) {
			t.Fatalf("%s: got %+v", what, res)
		}
		msg := pe.Error()
		for _, s := range []string{ann.Fingerprint, "the installed v1.0.0", "trusted on first use"} {
			if !strings.Contains(msg, s) {
				t.Errorf("%s: %q does not name %q", what, msg, s)
			}
		}
		after, _ := os.ReadFile(e.paths.PluginsFile())
		if !bytes.Equal(before, after) {
			t.Errorf("%s: plugins.toml changed", what)
		}
	}

	release(r, "1.1.0", false) // unsigned tag, unsigned commit
	refused(ErrProvenanceDowngrade, "signed → unsigned")

	r.Git("tag", "-d", "v1.1.0")
	r.SignWithSSH(bob)
	release(r, "1.2.0", true)
	refused(ErrSignerChanged, "ann → bob")

	// Accepted with a reason: taken, recorded, logged with who and why.
	u.Installer.AcceptProvenance = "ann left; bob signs releases now"
	res, err := u.Update(ctx, nil)
	if err != nil || len(res) != 1 || res[0].Status != StatusUpdated {
		t.Fatalf("accepted update: %+v, %v\n%s", res, err, e.log)
	}
	if got := sigEntry(t, e).Provenance; got.Signer != bob.Fingerprint {
		t.Errorf("after the accepted update: %+v", got)
	}
	recs = grantRecords(t, e)
	last := recs[len(recs)-1]
	if p := last.Provenance; p == nil || p.From.Signer != ann.Fingerprint || p.To.Signer != bob.Fingerprint ||
		p.Override != "--accept-provenance: ann left; bob signs releases now" || last.User == "" {
		t.Errorf("the accepted update's log record: %+v by %q", p, last.User)
	}

	// On a terminal, the person is asked.
	u.Installer.AcceptProvenance = ""
	release(r, "1.3.0", false)
	var asked *ProvenanceError
	u.Installer.Consent.ConfirmProvenance = func(e *ProvenanceError) (bool, error) { asked = e; return true, nil }
	if res, err := u.Update(ctx, nil); err != nil || res[0].Status != StatusUpdated || asked == nil || !asked.Downgrade {
		t.Fatalf("confirmed update: %+v, %v, asked %+v", res, err, asked)
	}
	recs = grantRecords(t, e)
	if p := recs[len(recs)-1].Provenance; p == nil || p.Override != "re-approved on a terminal" || p.To.Level != lockfile.LevelUnsigned {
		t.Errorf("the confirmed update's log record: %+v", p)
	}
}

// A key that an allowed-signers file vouches for under the principal
// recorded is the same signer: a rotation by whoever keeps the file.
func TestUpdateAcceptsAKeyRotatedInAllowedSigners(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	keys := t.TempDir()
	ann := provenancetest.NewSSHKey(t, keys, "ann")
	ann2 := provenancetest.NewSSHKey(t, keys, "ann2")
	allowed := provenancetest.AllowedSigners(t, filepath.Join(keys, "allowed"),
		`release@example.com namespaces="git" `+ann.Public, `release@example.com `+ann2.Public)
	r, url := signedPlugin(t, "1.0.0")
	r.SignWithSSH(ann)
	r.Git("tag", "-s", "-m", "1.0.0", "v1.0.0")
	e := newEnv(t)
	in := e.installer(Consent{Yes: true})
	in.Settings = withSigners(allowed)
	ctx := context.Background()
	if _, err := in.Install(ctx, url+"@^1.0"); err != nil {
		t.Fatalf("install: %v", err)
	}
	if got := sigEntry(t, e).Provenance; got.VouchedBy != allowed || got.Principal != "release@example.com" {
		t.Fatalf("recorded %+v", got)
	}
	r.SignWithSSH(ann2)
	release(r, "1.1.0", true)
	res, err := (&Updater{Installer: in}).Update(ctx, nil)
	if err != nil || res[0].Status != StatusUpdated {
		t.Fatalf("update: %+v, %v", res, err)
	}
	if got := sigEntry(t, e).Provenance; got.Signer != ann2.Fingerprint {
		t.Errorf("recorded %+v", got)
	}
}

func TestPolicyRequiresASignature(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	keys := t.TempDir()
	ann := provenancetest.NewSSHKey(t, keys, "ann")
	bob := provenancetest.NewSSHKey(t, keys, "bob")
	allowed := provenancetest.AllowedSigners(t, filepath.Join(keys, "allowed"), `ann@example.com `+ann.Public)
	pol := mustPolicy(t, "[provenance]\nallowed_signers = [\""+allowed+"\"]\nrequire = \"signed\"\n")
	ctx := context.Background()
	for _, c := range []struct {
		name string
		key  *provenancetest.SSHKey
		want string
	}{
		{"unsigned", nil, "it is unsigned"},
		{"a key the policy does not list", &bob, "in none of the policy's allowed_signers"},
		{"a key it lists", &ann, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, url := signedPlugin(t, "1.0.0")
			if c.key != nil {
				r.SignWithSSH(*c.key)
				r.Git("tag", "-s", "-m", "1.0.0", "v1.0.0")
			} else {
				r.Git("tag", "-a", "-m", "1.0.0", "v1.0.0")
			}
			e := newEnv(t)
			in := e.installer(Consent{Yes: true})
			in.Settings = settings.New(nil, pol)
			_, err := in.Install(ctx, url+"@v1.0.0")
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var de *policy.DeniedError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "[provenance] require") {
				t.Fatalf("got %v, want a denial saying %q", err, c.want)
			}
			if f, _ := e.store.Load(); len(f.Plugins) != 0 {
				t.Error("installed anyway")
			}
		})
	}
}

// A tag object changed after signing is refused outright, whatever the
// policy: it is evidence of tampering, not a lower level.
func TestInstallRefusesAForgedSignature(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	ann := provenancetest.NewSSHKey(t, t.TempDir(), "ann")
	r, url := signedPlugin(t, "1.0.0")
	r.SignWithSSH(ann)
	r.Git("tag", "-s", "-m", "the release", "v1.0.0")
	body := strings.Replace(r.Git("cat-file", "tag", "v1.0.0"), "the release", "a forgery", 1)
	obj := filepath.Join(t.TempDir(), "tag")
	writeFile(t, obj, body, 0o644)
	h := strings.TrimSpace(r.Git("hash-object", "-t", "tag", "-w", obj))
	r.Git("update-ref", "refs/tags/v1.0.1", h)
	e := newEnv(t)
	_, err := e.installer(Consent{Yes: true}).Install(context.Background(), url+"@v1.0.1")
	var bad *provenance.BadSignatureError
	if !errors.As(err, &bad) || bad.Signer != ann.Fingerprint {
		t.Fatalf("got %v", err)
	}
}

// Sync holds a fetched revision to the synced file's record: a tag
// re-signed by another key, at the same commit, is a changed signer.
func TestSyncRefusesATagResignedByAnotherKey(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	keys := t.TempDir()
	ann := provenancetest.NewSSHKey(t, keys, "ann")
	bob := provenancetest.NewSSHKey(t, keys, "bob")
	r, url := signedPlugin(t, "1.0.0")
	r.SignWithSSH(ann)
	r.Git("tag", "-s", "-m", "1.0.0", "v1.0.0")
	src := newEnv(t)
	ctx := context.Background()
	if _, err := src.installer(Consent{Yes: true}).Install(ctx, url+"@v1.0.0"); err != nil {
		t.Fatal(err)
	}
	want, err := src.store.Load()
	if err != nil {
		t.Fatal(err)
	}

	r.SignWithSSH(bob)
	r.Git("tag", "-f", "-s", "-m", "1.0.0 again", "v1.0.0")
	e := newEnv(t)
	res, err := (&Syncer{Installer: e.installer(Consent{Yes: true})}).Sync(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	var pe *ProvenanceError
	if len(res) != 1 || !errors.As(res[0].Err, &pe) || pe.Downgrade || pe.Got.Signer != bob.Fingerprint || !strings.Contains(pe.Against, "synced plugins.toml") {
		t.Fatalf("got %+v", res)
	}
	if f, _ := e.store.Load(); len(f.Plugins) != 0 {
		t.Error("installed anyway")
	}
}

// A reinstall (--force) is held to who signed what it replaces, as an
// update is: a tag re-signed by another key is refused until accepted.
func TestReinstallIsHeldToTheInstalledSigner(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	keys := t.TempDir()
	ann := provenancetest.NewSSHKey(t, keys, "ann")
	bob := provenancetest.NewSSHKey(t, keys, "bob")
	r, url := signedPlugin(t, "1.0.0")
	r.SignWithSSH(ann)
	r.Git("tag", "-s", "-m", "1.0.0", "v1.0.0")
	e := newEnv(t)
	in := e.installer(Consent{Yes: true})
	ctx := context.Background()
	if _, err := in.Install(ctx, url+"@v1.0.0"); err != nil {
		t.Fatal(err)
	}
	r.SignWithSSH(bob)
	r.Git("tag", "-f", "-s", "-m", "1.0.0 again", "v1.0.0")
	in.Force = true
	_, err := in.Install(ctx, url+"@v1.0.0")
	var pe *ProvenanceError
	if !errors.As(err, &pe) || pe.Downgrade || pe.Recorded.Signer != ann.Fingerprint || pe.Got.Signer != bob.Fingerprint {
		t.Fatalf("reinstall: %v", err)
	}
	in.AcceptProvenance = "bob took over releases"
	if _, err := in.Install(ctx, url+"@v1.0.0"); err != nil {
		t.Fatalf("accepted reinstall: %v", err)
	}
	if got := sigEntry(t, e).Provenance; got.Signer != bob.Fingerprint {
		t.Errorf("recorded %+v", got)
	}
}

// A trusted-signers file that cannot be read stops the install with an
// error naming it, as the settings' problem, not the source's.
func TestAMissingSignersFileStopsTheInstall(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	_, url := signedPlugin(t, "1.0.0")
	e := newEnv(t)
	in := e.installer(Consent{Yes: true})
	missing := filepath.Join(t.TempDir(), "allowed_signers")
	in.Settings = withSigners(missing)
	_, err := in.Install(context.Background(), url)
	var se *provenance.SignersError
	var fe *FetchError
	if !errors.As(err, &se) || errors.As(err, &fe) || se.File != missing || !strings.Contains(err.Error(), missing) {
		t.Fatalf("got %v", err)
	}
}
