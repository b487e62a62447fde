package cli

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/settings"
)

// EnvFetchTimeout overrides how long a fetch waits for a git server that
// sends nothing (a Go duration such as "90s", or seconds); a transfer that
// keeps moving is never cut off.
const EnvFetchTimeout = "FLEDGE_FETCH_TIMEOUT"

// consentFlags are the approval flags install, update and sync share.
type consentFlags struct {
	Yes   bool
	Grant []string
}

func (c *consentFlags) register(fl *pflag.FlagSet) {
	fl.BoolVarP(&c.Yes, "yes", "y", false, "approve what is requested (for unverified sources, not "+orList(install.UnverifiedGrants())+")")
	fl.StringSliceVar(&c.Grant, "grant", nil, "approve exactly these: "+strings.Join(manifest.GrantNames(), ", ")+", "+manifest.EnvItemPrefix+"NAME for one environment variable (none: deny everything)")
}

// newInstaller builds the installer that install, update and sync use: the
// home, the trust configuration, and consent from the flags or, with
// neither flag, from the user on a terminal (when ask is set).
func newInstaller(ctx context.Context, f *Factory, c consentFlags, ask bool) (*install.Installer, *settings.Settings, error) {
	grants, err := install.ParseGrants(c.Grant)
	if err != nil {
		return nil, nil, usageErrorf("--grant: %v", err)
	}
	if grants != nil && len(grants) == 0 && c.Yes {
		return nil, nil, usageErrorf("--grant none denies everything requested, and --yes approves it: give one of them")
	}
	store, paths, err := f.Lockfile()
	if err != nil {
		return nil, nil, err
	}
	set, err := loadSettings(f, paths)
	if err != nil {
		return nil, nil, err
	}
	if set, err = refreshRevocations(ctx, f, paths, set); err != nil {
		return nil, nil, err
	}
	cfg := set.Config()
	var idle time.Duration
	if v := f.Getenv(EnvFetchTimeout); v != "" {
		if idle, err = parseDuration(v); err != nil || idle <= 0 {
			return nil, nil, usageErrorf("%s=%q: want a positive duration such as 60s or 5m", EnvFetchTimeout, v)
		}
	}
	consent := install.Consent{Yes: c.Yes, Grant: grants}
	if ask && !c.Yes && grants == nil && f.IO.CanPrompt() {
		consent.Ask = func(r install.Request) (install.Decision, error) { return askApproval(ctx, f, r) }
	} else if f.IO.NonInteractive() {
		consent.Unasked = noPromptReason(f.IO)
	}
	if ask && f.IO.CanPrompt() {
		// --yes approves grants, never a lower provenance: that is asked.
		consent.ConfirmProvenance = func(e *install.ProvenanceError) (bool, error) { return confirmProvenance(ctx, f, e) }
	}
	return &install.Installer{
		Unconfined: unconfinedBy(f),
		Paths:      paths, Store: store, Settings: noteTrust(f.IO.ErrOut, set), Journal: grantLog(f, paths),
		GitHubBase: f.Getenv("FLEDGE_GITHUB_URL"), Consent: consent,
		Log: f.IO.ErrOut, GitHub: registry.GitHubAuthFromEnv(f.Getenv), Git: gitfetch.Options{IdleTimeout: idle,
			MaxTreeBytes: int64(cfg.Install.MaxSize), MaxTreeFiles: cfg.Install.MaxFiles}, Now: f.Now,
		OCI: ociRemote(f, cfg, idle),
	}, set, nil
}

// ociRemote is how registries are reached: the docker configuration's
// credentials (docker login, oras login and their credential helpers),
// plain http where config.toml's [oci] plain_http says.
func ociRemote(f *Factory, cfg *config.Config, idle time.Duration) ociartifact.Remote {
	dir := f.Getenv("DOCKER_CONFIG")
	if dir == "" {
		if home := f.Getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".docker")
		}
	}
	r := ociartifact.Remote{PlainHTTP: cfg.OCI.PlainHTTP, Timeout: idle}
	if dir != "" {
		r.DockerConfig = filepath.Join(dir, "config.json")
	}
	return r
}

// unconfinedFor says who turned kernel confinement off for p: FLEDGE_CONFINE=off,
// else p's record (fledge plugins unconfine); "" when it is on.
func unconfinedFor(f *Factory, p *lockfile.Plugin) string {
	if off := unconfinedBy(f); off != "" {
		return off
	}
	return p.Unconfined()
}

// unconfinedBy says who turned kernel confinement off ("" when it is on).
// A value other than on or off is refused where plugins run (runnerFor).
func unconfinedBy(f *Factory) string { return fastrun.UnconfinedBy(f.Getenv) }

// provenanceFlag is --accept-provenance, on install (a reinstall), update
// and sync: a pflag.Value, so it knows whether it was given at all.
type provenanceFlag struct {
	reason string
	given  bool
}

func (p *provenanceFlag) String() string { return p.reason }
func (p *provenanceFlag) Type() string   { return "reason" }
func (p *provenanceFlag) Set(v string) error {
	p.reason, p.given = v, true
	return nil
}

func (p *provenanceFlag) register(fl *pflag.FlagSet) {
	fl.Var(p, "accept-provenance", "accept a lower provenance or another signer than recorded, saying why (the grant log records it with who)")
}

// apply checks the flag and gives it to in.
func (p *provenanceFlag) apply(in *install.Installer) error {
	if !p.given {
		return nil
	}
	if strings.TrimSpace(p.reason) == "" {
		return usageErrorf("--accept-provenance needs a reason, such as --accept-provenance \"the author moved to a new key\": the grant log records it")
	}
	in.AcceptProvenance = strings.TrimSpace(p.reason)
	return nil
}
