package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/rogpeppe/go-internal/lockedfile"
	"github.com/rogpeppe/go-internal/renameio"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/kvstore"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
	"github.com/corvidlabs/fledge-go/treehash"
	"github.com/corvidlabs/fledge-go/trust"
)

// Installer installs plugins into one FLEDGE_HOME.
type Installer struct {
	Paths home.Paths
	Store *lockfile.Store
	// Settings answers the trust in force and the admin policy (nil:
	// config.toml's defaults and no policy): the one authority every
	// command asks, so the installer cannot hold a trust and a policy that
	// disagree.
	Settings *settings.Settings
	// GitHubBase is what owner/repo expands to.
	GitHubBase string
	Consent    Consent
	Force      bool
	// Copy snapshots local sources instead of linking them.
	Copy bool
	// Log receives progress and build output for humans.
	Log io.Writer
	Git gitfetch.Options
	// OCI is how OCI registries are reached (credentials, plain http,
	// timeouts); its limits are Git's MaxTreeBytes and MaxTreeFiles.
	OCI ociartifact.Remote
	// GitHub is the GitHub token, sent with a fetch where GitHubAuth.For
	// allows when Git.Auth is nil.
	GitHub registry.GitHubAuth
	// Env is the environment hooks run with (FLEDGE_PLUGIN_DIR is added).
	Env []string
	// Unconfined, when not empty, says who turned the kernel confinement
	// of hooks and builds off (FLEDGE_CONFINE=off).
	Unconfined string
	Now        func() time.Time
	// LookupName turns a registry name into a git source; nil when no
	// registry is available.
	LookupName func(ctx context.Context, s registry.Source) (registry.Source, error)
	// Journal is the grant log every change is recorded in (nil: none).
	Journal *grantlog.Log
	// AcceptProvenance, when set, is why the user accepts a revision
	// signed at a lower level, or by another signer, than recorded
	// (--accept-provenance): the grant log records it with who.
	AcceptProvenance string
}

// Result describes an installed plugin.
type Result struct {
	Entry    lockfile.Plugin
	Tier     registry.Tier
	Warnings []string
	// Replaced is set when --force replaced an installed plugin;
	// Previous is what was installed before, when Replaced.
	Replaced bool
	Previous *Installed
	// Denied lists what the plugin requests and was not granted, as grant
	// names (capabilities, then hooks).
	Denied []string
	// PolicyDenied says what of Denied the admin policy forbade, and why.
	PolicyDenied []policy.Denial
}

// fetched is a plugin tree ready to be validated and built.
type fetched struct {
	src     registry.Source
	dir     string // where the plugin's files are (staging tree, or the linked source)
	kind    string
	commit  string
	refKind string
	tag     string
	// made is when the tag was made (see gitfetch.Made); zero when the
	// revision is not a tag.
	made time.Time
	// registry is the registry name the source was looked up by.
	registry string
	// tier is the source's trust tier, as its fetcher judged it.
	tier trust.Tier
	// ociDigest is the OCI manifest's digest, and origin the source its
	// annotations name, for an artifact pulled from a registry.
	ociDigest, origin string
	// mirror is where the tree was fetched from when a mirror rule sent
	// the fetch elsewhere than src.
	mirror string
	// prov is who signed the revision, verified on the fetch's own
	// objects (nil for a kind of source without signatures); provNotes
	// say which signatures were found and not accepted.
	prov      *lockfile.Provenance
	provNotes []string
	// evidence is the signed git objects prov was verified on, as stored
	// (provenance.EncodeEvidence): what a mirror of this tree carries. Nil
	// when unsigned.
	evidence []byte
	// unsignedArtifact is the digest of an artifact that carried no
	// signed objects, for the words of a refusal.
	unsignedArtifact string
	// policyIDs are what the admin policy's source rules judged the
	// source as before fetching it; prepare judges them again with the
	// tree's hash (checkTree).
	policyIDs []policy.Source
}

// live reports whether the plugin's files are its source directory itself
// (a live link), which fledge neither moves nor changes.
func (f *fetched) live() bool { return lockfile.KindOf(f.kind).Live }

func (in *Installer) logf(format string, a ...any) {
	if in.Log != nil {
		fmt.Fprintf(in.Log, format, a...)
	}
}

// Install installs one source as a transaction.
func (in *Installer) Install(ctx context.Context, raw string) (*Result, error) {
	src, err := registry.ParseSource(raw, in.GitHubBase)
	if err != nil {
		return nil, &SourceError{Source: raw, Err: err}
	}
	regName := ""
	if src.Kind == registry.SourceName {
		if in.LookupName == nil {
			return nil, &SourceError{Source: raw, Err: fmt.Errorf("%q looks like a registry name, and no registry is available: use owner/repo, a git URL or ./path", raw)}
		}
		regName = src.Name
		if src, err = in.LookupName(ctx, src); err != nil {
			return nil, &SourceError{Source: raw, Err: err}
		}
	}
	stage, cleanup, err := newStage(in.Paths, "install")
	if err != nil {
		return nil, err
	}
	defer cleanup()

	f, err := in.fetch(ctx, src, regName, filepath.Join(stage, "tree"))
	if err != nil {
		return nil, hideStaging(err, stage)
	}
	res, err := in.installFetched(ctx, f)
	return res, hideStaging(err, stage)
}

// RefConstraint is the ref kind recorded for semver constraint pins.
const RefConstraint = "constraint"

// resolveRef resolves a ref against a remote's refs: a semver constraint to
// the highest matching tag, anything else as a tag, branch or commit.
func resolveRef(refs []*plumbing.Reference, ref string) (gitfetch.Revision, error) {
	if !registry.IsConstraint(ref) {
		return gitfetch.Resolve(refs, ref)
	}
	tag, _, err := registry.ResolveConstraint(registry.TagsFromRefs(refs), ref, false)
	if err != nil {
		return gitfetch.Revision{}, err
	}
	rev, err := gitfetch.Resolve(refs, tag)
	if err != nil {
		return gitfetch.Revision{}, err
	}
	rev.Ref, rev.Kind = ref, RefConstraint
	return rev, nil
}

func (in *Installer) installFetched(ctx context.Context, f *fetched) (*Result, error) {
	c, err := in.prepare(f)
	if err != nil {
		return nil, err
	}
	if err := in.preflight(c.m); err != nil {
		return nil, err
	}
	if err := in.checkTagAge(c.m.Plugin.Name, f); err != nil {
		return nil, err
	}
	if in.Force {
		if c.req.Installed, err = in.installed(c.m.Plugin.Name); err != nil {
			return nil, err
		}
	}
	c.req.Unconfined = in.unconfinedFor(c.m.Plugin.Name)
	// A reinstall is held to who signed what it replaces, as an update is.
	var against []recorded
	if cur := c.req.Installed; cur != nil {
		against = append(against, recorded{p: cur.Provenance, against: "the installed " + short(cur.Commit)})
	}
	override, err := in.checkProvenance(c, against...)
	if err != nil {
		return nil, err
	}
	dec, denied, err := in.decide(c.req)
	if err != nil {
		return nil, err
	}
	hooks := map[string]string{}
	if dec.Hooks {
		for _, h := range c.req.Hooks {
			hooks[h.Name] = h.Command
		}
	}
	j := journal{action: grantlog.ActionInstall, consent: in.Consent.consentOf(dec, grantlog.ConsentYes), policy: denied, override: override}
	return in.finish(ctx, c, dec.Capabilities, hooks, j)
}

// candidate is a fetched plugin whose manifest is valid, awaiting approval.
type candidate struct {
	f         *fetched
	m         *manifest.Manifest
	data      []byte // the plugin.toml shown for approval
	srcHash   string
	buildCmd  string
	autoBuild bool
	req       Request
	res       *Result
}

// prepare reads and validates the fetched manifest, hashes the fetched tree
// and assembles what must be approved.
func (in *Installer) prepare(f *fetched) (*candidate, error) {
	data, err := manifest.ReadFile(filepath.Join(f.dir, manifest.FileName))
	if errors.Is(err, manifest.ErrNoManifest) && !f.live() {
		// Fetched or copied: the directory it names is fledge's own.
		return nil, fmt.Errorf("%s has %w at its root: a plugin needs one", f.src.String(), manifest.ErrNoManifest)
	}
	if err != nil {
		return nil, err
	}
	m, err := manifest.Parse(data)
	if err != nil {
		return nil, err
	}
	problems := m.Validate()
	if err := problems.Err(); err != nil {
		return nil, err
	}
	c := &candidate{f: f, m: m, data: data, res: &Result{Tier: f.tier}}
	for _, p := range problems.Warnings() {
		c.res.Warnings = append(c.res.Warnings, p.String())
	}
	c.res.Warnings = append(c.res.Warnings, f.provNotes...)
	srcTree, err := treehash.Hash(f.dir, treehash.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Plugin.Name, err)
	}
	c.srcHash = srcTree.Hash
	if err := in.checkTree(m.Plugin.Name, f, c.srcHash); err != nil {
		return nil, err
	}
	c.buildCmd, c.autoBuild = BuildCommand(m, f.dir)
	c.req = Request{
		Plugin: m.Plugin.Name, Version: m.Plugin.Version, Description: m.Plugin.Description,
		Source: f.src.String(), Tier: c.res.Tier, Runtime: m.Plugin.Runtime, Capabilities: m.Capabilities, Commit: f.commit,
		Provenance: f.prov, ProvenanceNotes: f.provNotes,
	}
	if c.buildCmd != "" {
		c.req.Hooks = append(c.req.Hooks, HookItem{Name: manifest.HookBuild, Command: c.buildCmd, Auto: c.autoBuild})
	}
	for _, h := range manifest.HookNames[1:] {
		if cmd := m.Hooks.Get(h); cmd != "" {
			c.req.Hooks = append(c.req.Hooks, HookItem{Name: h, Command: cmd})
		}
	}
	// Validate refused declared hooks that cannot be shown; this also
	// covers a detected build command, before anything is shown or run.
	for _, h := range c.req.Hooks {
		if err := checkCommand(h.Name, h.Command); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// finish builds an approved candidate, checks its binaries and commits it
// with exactly the granted capabilities and approved hooks.
func (in *Installer) finish(ctx context.Context, c *candidate, granted manifest.Capabilities, hooks map[string]string, j journal) (*Result, error) {
	m, f := c.m, c.f
	name := m.Plugin.Name
	if c.buildCmd != "" {
		if hooks[manifest.HookBuild] != c.buildCmd {
			return nil, &ApprovalError{Plugin: name, Tier: c.res.Tier, Missing: []string{GrantHooks}, Cause: HooksRequired, Reason: "its build command was not approved"}
		}
		in.logf("Building %s: %s\n", name, termsafe.Escape(c.buildCmd))
		// An update or reinstall builds as its installed record says:
		// unconfined when fledge plugins unconfine turned it off.
		hin := in.forName(name)
		if err := hin.runHook(ctx, "build", c.buildCmd, f.dir, hin.hookEnv(name, c.buildCmd, f.dir, granted.Environment, m.Capabilities.Environment), in.Log); err != nil {
			return nil, err
		}
	}
	if !f.live() {
		makeBinariesExecutable(m, f.dir)
	}
	if err := m.CheckBinaries(f.dir).Err(); err != nil {
		return nil, err
	}
	if err := checkPlatform(m, f.dir); err != nil {
		return nil, err
	}
	if err := CheckWasm(ctx, m, f.dir, in.Paths.WasmCacheDir()).Err(); err != nil {
		return nil, err
	}

	entry := lockfile.Plugin{
		Name: name, Source: f.src.Display, Version: m.Plugin.Version,
		Installed: in.now().UTC().Format(time.RFC3339),
		Commands:  m.CommandNames(), PinnedRef: f.src.Ref, Capabilities: granted,
		Kind: f.kind, Commit: f.commit, RefKind: f.refKind, Tag: f.tag, SourceHash: c.srcHash,
		ManifestHash: treehash.FileDigest(c.data), Protocol: m.Plugin.Protocol,
		Requested: m.Capabilities, Hooks: hooks, BuildCommand: c.buildCmd,
		Description: m.Plugin.Description, CommandDetails: m.Commands, RegistryName: f.registry,
		OCIDigest: f.ociDigest, Origin: f.origin, Mirror: registry.RedactURL(f.mirror),
		Provenance: f.prov,
	}
	if m.Plugin.Runtime == "wasm" {
		entry.Runtime = m.Plugin.Runtime
	}
	if !lockfile.KindOf(f.kind).Local {
		entry.URL = registry.RedactURL(f.src.URL)
	}
	replaced, err := in.commit(ctx, m, f, &entry, j, c.res.Tier)
	if err != nil {
		return nil, err
	}
	c.res.Entry, c.res.Replaced, c.res.PolicyDenied = entry, replaced, j.policy
	got := Grants{Capabilities: granted, Hooks: hooks}
	for _, it := range c.req.Items() {
		if !got.Has(it) {
			c.res.Denied = append(c.res.Denied, it)
		}
	}
	if replaced {
		c.res.Previous = c.req.Installed
	}
	return c.res, nil
}

// preflight refuses early what commit would refuse anyway, before anything
// is built. commit checks again under the lock.
func (in *Installer) preflight(m *manifest.Manifest) error {
	file, err := in.Store.Load()
	if err != nil {
		return err
	}
	return checkSlot(file, m, in.Force)
}

// unconfinedFor says who turned kernel confinement off for the plugin
// named name: Unconfined (FLEDGE_CONFINE=off, or the switch for every
// plugin), else its record's switch; "" when it is on.
func (in *Installer) unconfinedFor(name string) string {
	if in.Unconfined != "" {
		return in.Unconfined
	}
	file, err := in.Store.Load()
	if err != nil {
		return ""
	}
	if p, ok := file.Get(name); ok {
		return p.Unconfined()
	}
	return file.Unconfined()
}

// forName is in for the hooks of the plugin named name: with
// confinement off when unconfinedFor says it is.
func (in *Installer) forName(name string) *Installer {
	off := in.unconfinedFor(name)
	if off == in.Unconfined {
		return in
	}
	cp := *in
	cp.Unconfined = off
	return &cp
}

// installed describes the installed plugin named name, or nil.
func (in *Installer) installed(name string) (*Installed, error) {
	file, err := in.Store.Load()
	if err != nil {
		return nil, err
	}
	p, ok := file.Get(name)
	if !ok {
		return nil, nil
	}
	return &Installed{Version: p.Version, Commit: p.Commit, Requested: p.Requested,
		Grants: Grants{Capabilities: p.Capabilities, Hooks: p.Hooks}, Provenance: p.Provenance}, nil
}

// checkSlot refuses a plugin whose name or commands are taken, spelled
// the same or (on every OS, since macOS and Windows fold case) differing
// only by case, and the replacement (force) of a disabled plugin.
func checkSlot(file *lockfile.File, m *manifest.Manifest, force bool) error {
	if twin, ok := file.CaseTwin(m.Plugin.Name); ok {
		return &NameConflictError{Name: m.Plugin.Name, Installed: twin.Name}
	}
	if p, ok := file.Get(m.Plugin.Name); ok && !force {
		return &AlreadyInstalledError{Plugin: p.Name, Version: p.Version, Commit: p.Commit}
	} else if ok {
		// Off means off: a disabled plugin's hooks do not run, so it is
		// not replaced (reinstalled, updated, synced) until it is enabled.
		if err := p.DisabledErr("it is not reinstalled or updated while disabled"); err != nil {
			return err
		}
	}
	for _, c := range m.CommandNames() {
		if owner, ok := file.CommandOwner(c); ok && owner.Name != m.Plugin.Name {
			return &ConflictError{Command: c, Owner: owner.Name}
		}
		if owner, spelling, ok := file.CommandCaseTwin(c); ok && owner.Name != m.Plugin.Name {
			return &ConflictError{Command: c, Owner: owner.Name, Existing: spelling}
		}
	}
	return nil
}

func (in *Installer) now() time.Time {
	if in.Now == nil {
		return time.Now()
	}
	return in.Now()
}

// hookEnv is the environment of the hook or build command command, run in
// dir for the plugin name granted the environment variables granted and
// declaring declared (its manifest's): the base environment and what is
// granted (confine.Environment), or fledge's whole environment where
// confinement is turned off (Unconfined), plus FLEDGE_PLUGIN_DIR. The
// withheld variables it may have wanted are named in one note in the log,
// with the command that grants them, never with their values: those it
// declares, or, for a plugin that declares none, those the command names
// (or the script in dir it runs, read as confine.NamedIn reads a program).
func (in *Installer) hookEnv(name, command, dir string, granted, declared []string) []string {
	env := in.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.Clone(env)
	if in.Unconfined == "" {
		var withheld []string
		env, withheld, _ = confine.Environment(env, granted)
		withheld = slices.DeleteFunc(withheld, func(v string) bool { return manifest.CheckEnvName(v) != "" || len(v) < 3 })
		var wanted []string
		why := "it declares them, they are not granted"
		if len(declared) > 0 {
			for _, v := range withheld {
				if confine.MatchAny(declared, v) {
					wanted = append(wanted, v)
				}
			}
		} else {
			why = "the hook names them"
			wanted = confine.Named([]byte(command), withheld)
			if f := strings.Fields(command); len(f) > 0 && manifest.CheckBinaryPath(f[0]) == "" {
				for _, v := range confine.NamedIn(filepath.Join(dir, filepath.FromSlash(f[0])), withheld) {
					if !slices.Contains(wanted, v) {
						wanted = append(wanted, v)
					}
				}
			}
			slices.Sort(wanted)
		}
		if len(wanted) > 0 && in.Log != nil {
			items := make([]string, len(wanted))
			for i, v := range wanted {
				items[i] = manifest.EnvItem(v)
			}
			fmt.Fprintf(in.Log, "  note: the hooks of %s are not given %s (%s): fledge plugins grant %s %s\n",
				name, strings.Join(wanted, ", "), why, name, strings.Join(items, " "))
		}
	}
	return confine.SetEnv(env, "FLEDGE_PLUGIN_DIR", dir)
}

// makeBinariesExecutable sets the executable bits of command binaries in a
// tree fledge owns (a clone or copy), as the Rust fledge does: plugins
// published from systems that lose the bit still run.
func makeBinariesExecutable(m *manifest.Manifest, dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	for _, c := range m.Commands {
		if manifest.CheckBinaryPath(c.Binary) != "" {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(c.Binary))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 != 0 {
			continue
		}
		_ = os.Chmod(p, fi.Mode().Perm()|0o111)
	}
}

// commit moves the plugin into place, links its commands, runs post_install
// and records the entry, all under the tree lock. Any failure puts back
// exactly what was there before.
func (in *Installer) commit(ctx context.Context, m *manifest.Manifest, f *fetched, entry *lockfile.Plugin, j journal, tier registry.Tier) (replaced bool, err error) {
	unlock, err := lockedfile.MutexAt(in.Paths.TreeLock()).Lock()
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", in.Paths.TreeLock(), err)
	}
	defer unlock()
	if err := recoverLocked(in.Paths, in.Store); err != nil {
		return false, err
	}

	file, err := in.Store.Load()
	if err != nil {
		return false, err
	}
	if err := checkSlot(file, m, in.Force); err != nil {
		return false, err
	}
	var old *lockfile.Plugin
	if p, ok := file.Get(entry.Name); ok {
		cp := *p
		old = &cp
		// Confinement turned off for this plugin stays off across an
		// update or a reinstall, as its grants do (fledge plugins
		// confine turns it back on).
		entry.UnconfinedBy, entry.UnconfinedAt = p.UnconfinedBy, p.UnconfinedAt
	}

	marker := commitMarker(in.Paths, entry.Name)
	if err := os.MkdirAll(filepath.Dir(marker), 0o755); err != nil {
		return false, err
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return false, err
	}
	defer func() {
		os.Remove(marker)
		os.Remove(in.Paths.TrashDir()) // when empty (see Interrupted)
	}()
	tx := &swap{paths: in.Paths, name: entry.Name}
	defer func() {
		if err != nil {
			tx.rollback()
		}
	}()
	if old != nil {
		// The Rust fledge kept the plugin's store inside its tree: take it
		// over before the tree goes, or an update would drop it.
		if err := kvstore.ForPlugin(in.Paths, entry.Name).Adopt(); err != nil {
			return false, err
		}
	}
	if err := tx.moveOldAside(); err != nil {
		return false, err
	}
	if f.live() {
		err = tx.placeLink(f.dir)
	} else {
		err = tx.placeTree(f.dir)
	}
	if err != nil {
		return false, err
	}
	final := in.Paths.PluginDir(entry.Name)
	if old != nil {
		tx.unlinkCommands(old.Commands)
	}
	if err := tx.linkCommands(m, final); err != nil {
		in.logf("warning: %v\n", err)
	}
	if hook, ok := entry.Hooks[manifest.HookPostInstall]; ok {
		in.logf("Running post_install for %s: %s\n", entry.Name, termsafe.Escape(hook))
		hin := in.forName(entry.Name)
		env := hin.hookEnv(entry.Name, hook, finalDir(final, f), in.Settings.Grants(entry).Capabilities.Environment, m.Capabilities.Environment)
		if err := hin.runHook(ctx, manifest.HookPostInstall, hook, finalDir(final, f), env, in.Log); err != nil {
			return false, err
		}
	}
	tree, err := treehash.Hash(final, treehash.Options{AllowExternalLinks: true})
	if err != nil {
		return false, fmt.Errorf("%s: %w", entry.Name, err)
	}
	entry.TreeHash = tree.Hash
	if err := writeTreeFile(in.Paths.TreeFile(entry.Name), tree); err != nil {
		return false, err
	}
	var prev *lockfile.Plugin
	err = updateLogged(in.Store, in.Journal, func(file *lockfile.File) error {
		if err := checkSlot(file, m, true); err != nil {
			return err
		}
		if p, ok := file.Get(entry.Name); ok {
			cp := *p
			prev = &cp
		}
		file.Put(*entry)
		return nil
	}, func() []grantlog.Record { return []grantlog.Record{recordOf(j, tier, prev, entry)} })
	if err != nil {
		return false, err
	}
	tx.done()
	return old != nil, nil
}

func finalDir(final string, f *fetched) string {
	if f.live() {
		return f.dir
	}
	return final
}

func writeTreeFile(path string, t *treehash.Tree) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if err := renameio.WriteFile(path, data); err != nil {
		return err
	}
	return os.Chmod(path, 0o644)
}

// git is the fetch options: Git, with the GitHub token where
// GitHubAuth.For allows it unless Git.Auth says otherwise.
func (in *Installer) git() gitfetch.Options {
	o := in.Git
	if o.Auth == nil && in.GitHub.Token != "" {
		gh := in.GitHub
		o.Auth = gitfetch.TokenAuth(func(url string) string { return string(gh.For(url)) })
	}
	return o
}

// trust is the trust in force, narrowed by the admin policy.
func (in *Installer) trust() trust.Config {
	t, _ := in.Settings.Trust()
	return t
}

// policy is the admin policy in force (nil: none).
func (in *Installer) policy() *policy.Set { return in.Settings.Policy() }
