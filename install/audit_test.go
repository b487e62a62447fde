package install

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/treehash"
	"github.com/corvidlabs/fledge-go/trust"
)

const auditManifest = `[plugin]
name = "fledge-plugin-aud"
version = "1.0.0"
protocol = "fledge-v1"

[capabilities]
exec = true
network = true
metadata = true

[hooks]
post_install = "true"

[[commands]]
name = "aud"
binary = "aud.sh"
`

func auditFixture(t *testing.T) (home.Paths, lockfile.Plugin) {
	t.Helper()
	paths, err := home.New(filepath.Join(t.TempDir(), "fh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := paths.PluginDir("fledge-plugin-aud")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(auditManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	p := lockfile.Plugin{
		Name: "fledge-plugin-aud", Version: "1.0.0", Source: "https://github.com/o/fledge-plugin-aud",
		URL: "https://github.com/o/fledge-plugin-aud", Kind: lockfile.KindGit,
		Capabilities: manifest.Capabilities{Exec: true, Network: true},
		Requested:    manifest.Capabilities{Exec: true, Network: true, Metadata: true},
		Hooks:        map[string]string{"post_install": "true"},
		ManifestHash: treehash.FileDigest([]byte(auditManifest)),
	}
	return paths, p
}

// An unverified source granted what only naming grants is one warning,
// by the approval's own rule: exec, network and hooks alike.
func TestAuditWarnsAsApprovalDecides(t *testing.T) {
	t.Parallel()
	paths, p := auditFixture(t)
	a := AuditPlugin(paths, &p, trust.Unverified)
	want := []string{"unverified source with exec, network, hooks granted", "requested but not granted: metadata"}
	if a.Tier != trust.Unverified || !reflect.DeepEqual(a.Warnings, want) {
		t.Fatalf("tier %s, warnings %q; want %q", a.Tier, a.Warnings, want)
	}
	if !a.HasLifecycleHooks || a.Runtime != manifest.RuntimeNative || a.Sandboxed {
		t.Errorf("audit %+v", a)
	}

	// The same grants from a trusted owner warn about nothing risky.
	a = AuditPlugin(paths, &p, trust.Team)
	if !reflect.DeepEqual(a.Warnings, want[1:]) {
		t.Errorf("trusted source: warnings %q", a.Warnings)
	}
}

// A record the Rust fledge wrote has no requested set: the installed
// plugin.toml says what is requested; a changed plugin.toml is a warning.
func TestAuditOfARustRecordAndAChangedManifest(t *testing.T) {
	t.Parallel()
	paths, p := auditFixture(t)
	p.ManifestHash, p.Requested = "", manifest.Capabilities{}
	if a := AuditPlugin(paths, &p, trust.Unverified); !a.Requested.Metadata || !a.Requested.Exec {
		t.Errorf("requested %+v, want the manifest's", a.Requested)
	}
	_, p = auditFixture(t)
	p.ManifestHash = treehash.FileDigest([]byte("other"))
	a := AuditPlugin(paths, &p, trust.Unverified)
	if !slices.Contains(a.Warnings, "plugin.toml no longer matches the one approved at install") {
		t.Errorf("warnings %q", a.Warnings)
	}
}
