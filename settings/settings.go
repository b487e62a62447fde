package settings

import (
	"path/filepath"

	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/trust"
)

// Inputs say where the settings are read from.
type Inputs struct {
	// ConfigFile is config.toml's path; a missing file is no settings.
	ConfigFile string
	// SystemPolicy is the system policy's path (policy.SystemPath() in
	// fledge, "" for none); EnvPolicy is FLEDGE_POLICY's value.
	SystemPolicy string
	EnvPolicy    string
	// RevocationCache is where revocation lists fetched from URLs are
	// cached (policy.Inputs.RevocationCache).
	RevocationCache string
}

// Settings are config.toml and the admin policy, as read at one moment.
// The nil *Settings is no configuration and no policy.
type Settings struct {
	in        Inputs
	config    *config.Config
	configRaw []byte
	policy    *policy.Set
	trust     trust.Config
	dropped   []policy.Denial
}

// Load reads config.toml and the admin policy (the system file, the files
// in EnvPolicy, and config.toml's [policy]).
//
// A config.toml that cannot be read or decoded is an error. So is a policy
// that cannot be read or is invalid (a *policy.InvalidError), but then
// Load also returns the Settings of config.toml alone: commands that only
// describe plugins show them with a warning; anything that installs,
// grants or runs must stop, as the policy's error says.
func Load(in Inputs) (*Settings, error) {
	raw, err := config.Read(in.ConfigFile)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Decode(in.ConfigFile, raw)
	if err != nil {
		return nil, err
	}
	s := &Settings{in: in, config: cfg, configRaw: raw, trust: trust.Config{Orgs: cfg.Trust.Orgs, Users: cfg.Trust.Users}}
	pol, err := policy.Load(policy.Inputs{System: in.SystemPolicy, Env: in.EnvPolicy, ConfigFile: in.ConfigFile, Config: raw, RevocationCache: in.RevocationCache})
	if err != nil {
		return s, err
	}
	s.policy = pol
	s.trust, s.dropped = narrowTrust(s.trust, pol)
	return s, nil
}

// narrowTrust keeps of t the owners the policy's [trust] owners rules let
// config.toml trust; the denials say which were dropped and why.
func narrowTrust(t trust.Config, pol *policy.Set) (trust.Config, []policy.Denial) {
	if pol.Empty() {
		return t, nil
	}
	orgs, d1 := pol.Trusted(t.Orgs)
	users, d2 := pol.Trusted(t.Users)
	return trust.Config{Orgs: orgs, Users: users}, append(d1, d2...)
}

// Config is config.toml as decoded (empty when there is none).
func (s *Settings) Config() *config.Config {
	if s == nil || s.config == nil {
		return &config.Config{}
	}
	return s.config
}

// ConfigData is config.toml's bytes as read (nil when there is none), for
// caches keyed on what was read.
func (s *Settings) ConfigData() []byte {
	if s == nil {
		return nil
	}
	return s.configRaw
}

// Policy is the admin policy in force (nil: none, or it could not be read).
func (s *Settings) Policy() *policy.Set {
	if s == nil {
		return nil
	}
	return s.policy
}

// Trust is the trust in force: config.toml's [trust] narrowed by the
// policy's [trust] owners. The denials name each owner the policy dropped
// (their plugins rank as unverified), for the command layer to note.
func (s *Settings) Trust() (trust.Config, []policy.Denial) {
	if s == nil {
		return trust.Config{}, nil
	}
	return s.trust, s.dropped
}

// AllowedSigners lists the trusted-signers files in force: config.toml's
// [provenance] allowed_signers (relative paths from its directory), then
// every policy layer's. The policy's own are also what its [provenance]
// require rules accept (policy.Set.CheckProvenance).
func (s *Settings) AllowedSigners() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, f := range s.Config().Provenance.AllowedSigners {
		if !filepath.IsAbs(f) {
			f = filepath.Join(filepath.Dir(s.in.ConfigFile), f)
		}
		out = append(out, filepath.Clean(f))
	}
	return append(out, s.Policy().AllowedSigners()...)
}

// Files lists what the settings are read from: config.toml, the system
// policy file, its drop-ins (policy.DropIns, as they are now) and the
// files FLEDGE_POLICY names, whether they exist or not. A watcher that
// sees one change reloads.
func (in Inputs) Files() []string {
	files := []string{in.ConfigFile}
	if in.SystemPolicy != "" {
		dropIns, _, _ := policy.DropIns(in.SystemPolicy)
		files = append(append(files, in.SystemPolicy), dropIns...)
	}
	for _, f := range filepath.SplitList(in.EnvPolicy) {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// Files lists the files the settings were read from (Inputs.Files).
func (s *Settings) Files() []string {
	if s == nil {
		return nil
	}
	return s.in.Files()
}

// Tier is an installed plugin's trust tier under the trust in force.
func (s *Settings) Tier(p *lockfile.Plugin) trust.Tier {
	t, _ := s.Trust()
	return RecordTier(p, t)
}

// RecordTier decides an installed plugin's tier from its record under t:
// it is judged on the same source the policy's rules match (see
// policy.RecordedSource), so a record the Rust fledge wrote, which has no
// kind or URL, is local for a path and github.com for owner/repo.
func RecordTier(p *lockfile.Plugin, t trust.Config) trust.Tier {
	src := policy.RecordedSource(p.IsLocal(), p.URL, p.Source, "")
	return t.OfSource(src.Path != "", src.URL)
}

// RecordSource is what the policy's source rules see of an installed
// plugin's record (policy.RecordedSource), with the commit installed:
// the one answer install, update, grant, audit and the runner judge a
// record by, so a rule pinned to a commit holds at every run.
func RecordSource(p *lockfile.Plugin) policy.Source {
	src := policy.RecordedSource(p.IsLocal(), p.URL, p.Source, p.RegistryName)
	src.Commit, src.Tree = p.Commit, p.SourceHash
	return src
}

// Grants is what an installed plugin may do here, now.
type Grants struct {
	// Tier is its trust tier under the trust in force.
	Tier trust.Tier
	// Capabilities is what plugins.toml grants it, narrowed by the
	// policy's limits for Tier: all the runner allows it.
	Capabilities manifest.Capabilities
	// Hooks says whether its approved hooks may run (it has some, and the
	// policy lets its tier run hooks).
	Hooks bool
	// Denied holds, for each grant the policy takes away, the rule that
	// does (Item is the capability, or "hooks").
	Denied []policy.Denial
	// Revoked, when set, is the revocation list entry that revokes the
	// plugin (its source, or its commit): it does not run at all.
	Revoked *policy.Revocation
}

// Grants is p's tier and effective grants: the one computation list,
// info, audit, tools, help, the MCP server and the runner share.
func (s *Settings) Grants(p *lockfile.Plugin) Grants {
	tier := s.Tier(p)
	caps, hooks, denied := s.Policy().Narrow(string(tier), p.Capabilities, len(p.Hooks) > 0)
	return Grants{Tier: tier, Capabilities: caps, Hooks: hooks, Denied: denied, Revoked: s.Policy().Revoked(RecordSource(p))}
}

// New is the Settings of a config and a policy already in hand (a nil
// config is config.toml's defaults, a nil policy none), the trust narrowed
// by the policy as Load narrows it.
func New(cfg *config.Config, pol *policy.Set) *Settings {
	if cfg == nil {
		cfg = &config.Config{}
	}
	s := &Settings{config: cfg, policy: pol, trust: trust.Config{Orgs: cfg.Trust.Orgs, Users: cfg.Trust.Users}}
	s.trust, s.dropped = narrowTrust(s.trust, pol)
	return s
}
