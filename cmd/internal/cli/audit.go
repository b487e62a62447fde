package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
	"github.com/corvidlabs/fledge-go/wasmhost"
)

type auditOptions struct {
	Names []string
	JSON  bool
	auditAdmin
}

func newAuditCmd(f *Factory) *cobra.Command {
	opts := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit [<name>...]",
		Short: "Show what every installed plugin (or those named) may do and where it came from",
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			if err := opts.auditAdmin.check(opts.JSON); err != nil {
				return err
			}
			switch {
			case opts.Events:
				if len(args) > 0 {
					return usageErrorf("--events reads the whole trail; name a plugin with --plugin")
				}
				return auditEventsRun(f, opts)
			case opts.Format != "":
				return auditSBOMRun(f, opts)
			case opts.Log || opts.VerifyLog:
				if len(args) > 0 {
					return usageErrorf("--log and --verify-log read the whole grant log; name a plugin with --plugin")
				}
				return auditLogRun(f, opts)
			}
			return auditRun(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	cmd.ValidArgsFunction = completePluginNames(f, true)
	opts.auditAdmin.register(cmd.Flags())
	return cmd
}

// auditEntry is one plugin audited: a superset of the Rust fledge's audit
// entry (src/plugin/list.rs, audit_plugins).
type auditEntry struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	TrustTier string `json:"trust_tier"`
	Source    string `json:"source"`
	// Runtime is "native" or "wasm"; Sandboxed is set for wasm (Rust's).
	Runtime   string `json:"runtime"`
	Sandboxed bool   `json:"sandboxed"`
	// Capabilities is what plugins.toml records as granted, in Rust's
	// shape; Granted is that narrowed by the admin policy (see
	// pluginJSON.Granted).
	Capabilities capsJSON `json:"capabilities"`
	Commands     []string `json:"commands"`
	// HasLifecycleHooks says whether the installed manifest declares any
	// hook besides build (approved or not), as Rust's does.
	HasLifecycleHooks bool              `json:"has_lifecycle_hooks"`
	URL               string            `json:"url"`
	Kind              string            `json:"kind"`
	Commit            string            `json:"commit"`
	PinnedRef         *string           `json:"pinned_ref"`
	Granted           capsJSON          `json:"granted"`
	Requested         capsJSON          `json:"requested"`
	Hooks             map[string]string `json:"approved_hooks"`
	Warnings          []string          `json:"warnings"`
	// Sandbox says what a sandboxed plugin's own code may touch.
	Sandbox string `json:"sandbox,omitempty"`
	// Confinement is how the kernel confines a native plugin's own code
	// here (absent for wasm).
	Confinement *confinementJSON `json:"confinement,omitempty"`
	// PolicyDenied lists what the admin policy refuses it now: granted
	// capabilities or hooks (denied at run time), its source, its pin,
	// its provenance.
	PolicyDenied []string `json:"policy_denied"`
	// Disabled and DisabledBy are as in list (fledge plugins disable).
	Disabled   bool   `json:"disabled"`
	DisabledBy string `json:"disabled_by"`
	// Revoked is as in list.
	Revoked *revokedJSON `json:"revoked"`
	// Provenance is who signed the installed revision (list's object).
	Provenance provenanceJSON `json:"provenance"`
	// VouchedBy is the allowed-signers file that vouched for the signer,
	// "first-use" when it was pinned by its first install, "" when
	// unsigned.
	VouchedBy string `json:"vouched_by"`
}

// confinementJSON is confine.Status: the profile's row, whether it may
// use the network, and whether the kernel enforces it (why not, if not).
type confinementJSON struct {
	Scope          string `json:"scope"`
	Network        bool   `json:"network"`
	KernelEnforced bool   `json:"kernel_enforced"`
	Reason         string `json:"reason,omitempty"`
	Reach          string `json:"reach"`
}

// confinementOf is how the kernel confines the own code of a native
// plugin declaring the filesystem scope declared, with effective grants g,
// here (off: who turned confinement off, if anyone).
func confinementOf(declared string, g settings.Grants, off string) *confinementJSON {
	return toConfinementJSON(confine.StatusOf(declared, confine.Grants{Filesystem: g.Capabilities.Filesystem, Network: g.Capabilities.Network}, confine.Detect(), off))
}

// toConfinementJSON is st as audit, info, list and tools show it.
func toConfinementJSON(st confine.Status) *confinementJSON {
	return &confinementJSON{Scope: string(st.Scope), Network: st.Network, KernelEnforced: st.Enforced, Reason: st.Reason, Reach: st.Reach()}
}

// text is the confinement in a few words, for audit and info.
func (c *confinementJSON) text() string {
	if c.KernelEnforced {
		return "confined by the kernel: its own code reaches " + c.Reach
	}
	return "not confined (" + termsafe.Line(c.Reason) + "): its code runs with your privileges"
}

type auditDoc struct {
	SchemaVersion int          `json:"schema_version"`
	Audit         []auditEntry `json:"audit"`
	// Externals are fledge-<name> programs on PATH: fledge did not
	// install them and enforces nothing on them (fledge's addition).
	Externals []externalJSON `json:"externals"`
	// PolicyError says why the admin policy cannot be read (null when it
	// can); GrantLog is the grant log's check (see --verify-log).
	PolicyError *string       `json:"policy_error"`
	GrantLog    *grantLogJSON `json:"grant_log"`
	// PolicyUnprotected says why the system policy is not protected (null
	// when it is, or there is none; auditfleet.go).
	PolicyUnprotected *string `json:"policy_unprotected"`
	// RevocationErrors are the revocation lists that cannot be read, and
	// what that does (auditfleet.go).
	RevocationErrors []string `json:"revocation_errors"`
	// Required are the policy's [[required]] plugins: ok, missing or
	// drifted (auditfleet.go).
	Required []requiredJSON `json:"required"`
	// UnconfinedAll says who turned kernel confinement off for every
	// plugin and when (fledge plugins unconfine --all), null when nobody
	// did; ConfineOffHere says FLEDGE_CONFINE=off is set in the process
	// that audits, which turns it off for every plugin run from there.
	UnconfinedAll  *string `json:"unconfined_all"`
	ConfineOffHere bool    `json:"confine_off_here"`
}

func auditRun(f *Factory, opts *auditOptions) error {
	file, _, paths, err := loadState(f)
	if err != nil {
		return err
	}
	set, ap, err := loadAuditSettings(f, paths)
	if err != nil {
		return err
	}
	noteTrust(f.IO.ErrOut, set)
	plugins, err := namedPlugins(file, opts.Names)
	if err != nil {
		return err
	}
	doc := auditDoc{SchemaVersion: SchemaVersion, Audit: []auditEntry{}, RevocationErrors: []string{}, Required: []requiredJSON{}, Externals: externals(runner.Externals(paths, f.Getenv("PATH")), file),
		ConfineOffHere: unconfinedBy(f) != ""}
	if all := file.Unconfined(); all != "" {
		doc.UnconfinedAll = &all
	}
	for _, p := range plugins {
		doc.Audit = append(doc.Audit, auditPlugin(paths, p, set.Grants(p), unconfinedFor(f, p)))
	}
	warnings := auditAdminChecks(paths, file, ap, set, &doc)
	warnings += auditFleetChecks(f, file, ap, &doc)
	if opts.JSON {
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
		return auditStrict(f, opts, warnings)
	}
	if len(doc.Audit) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No plugins installed.")
	}
	if doc.UnconfinedAll != nil {
		fmt.Fprintf(f.IO.Out, "! kernel confinement is off for every plugin: turned off by %s; fledge plugins confine --all turns it back on\n", termsafe.Line(*doc.UnconfinedAll))
	}
	if doc.ConfineOffHere {
		fmt.Fprintf(f.IO.Out, "! %s=off is set here: every plugin run from this environment runs unconfined, with your whole environment\n", EnvConfine)
	}
	for _, a := range doc.Audit {
		printAudit(f, a)
	}
	printExternals(f.IO.Out, doc.Externals)
	printAuditAdmin(f.IO.Out, &doc)
	printAuditFleet(f.IO.Out, &doc)
	return auditStrict(f, opts, warnings)
}

// auditStrict fails audit --strict when warnings stand.
func auditStrict(f *Factory, opts *auditOptions, warnings int) error {
	if !opts.Strict || warnings == 0 {
		return nil
	}
	fmt.Fprintf(f.IO.ErrOut, "error: audit --strict: %d warning(s) stand\n", warnings)
	return &exitCodeError{code: ExitFailure}
}

// auditPlugin is install.AuditPlugin's findings in audit's document, with
// the tier and effective grants g the settings decide.
func auditPlugin(paths home.Paths, p *lockfile.Plugin, g settings.Grants, off string) auditEntry {
	au := install.AuditPlugin(paths, p, g.Tier)
	cmds := p.Commands
	if cmds == nil {
		cmds = []string{}
	}
	a := auditEntry{
		Name: p.Name, Version: p.Version, TrustTier: string(au.Tier), Source: p.Source,
		Runtime: au.Runtime, Sandboxed: au.Sandboxed, Capabilities: toCapsJSON(p.Capabilities), Commands: cmds,
		HasLifecycleHooks: au.HasLifecycleHooks, URL: p.URL, Kind: kindOf(p), Commit: p.Commit,
		PinnedRef: optional(p.PinnedRef), Granted: toCapsJSON(g.Capabilities), Requested: toCapsJSON(au.Requested),
		Hooks: map[string]string{}, Warnings: au.Warnings, PolicyDenied: []string{},
		Disabled: p.IsDisabled(), DisabledBy: p.Disabled(), Revoked: toRevokedJSON(g),
		Provenance: toProvenanceJSON(p.Provenance),
	}
	if p.Provenance.Signed() {
		a.VouchedBy = p.Provenance.VouchedBy
	}
	maps.Copy(a.Hooks, p.Hooks)
	// The library finds; the words a person acts on are added here.
	if n := len(a.Warnings); n > 0 {
		switch {
		case au.FilesMissing:
			a.Warnings[n-1] = "its installed files are missing: reinstall it (" + commandLine("plugins", "install", p.Source, "--force") + ")"
		case au.ManifestErr != nil:
			a.Warnings[n-1] = "installed manifest unreadable: " + fastrun.WithoutSyscalls(au.ManifestErr)
		}
	}
	if a.Sandboxed {
		a.Sandbox = wasmhost.Describe(p.Capabilities.Filesystem)
	} else {
		a.Confinement = confinementOf(au.Requested.Filesystem, g, off)
	}
	return a
}

func printAudit(f *Factory, a auditEntry) {
	w := f.IO.Out
	st := f.IO.OutStyle()
	fmt.Fprintf(w, "%s %s [%s]\n", st.Bold(termsafe.Escape(a.Name)), termsafe.Escape(a.Version), st.Tier(a.TrustTier))
	src := a.Source
	if a.PinnedRef != nil {
		src += "@" + *a.PinnedRef
	}
	fmt.Fprintf(w, "  source:    %s (%s)\n", termsafe.Escape(src), a.Kind)
	if a.Commit != "" {
		fmt.Fprintf(w, "  commit:    %s\n", termsafe.Escape(a.Commit))
	}
	fmt.Fprintf(w, "  signed:    %s\n", provenanceText(&lockfile.Provenance{Level: a.Provenance.Level,
		Signer: a.Provenance.Signer, Principal: a.Provenance.Principal, VouchedBy: a.VouchedBy}))
	if a.Sandboxed {
		fmt.Fprintf(w, "  runtime:   wasm (sandboxed): its own code reaches %s\n", a.Sandbox)
	} else if a.Confinement != nil {
		fmt.Fprintf(w, "  runtime:   %s, %s\n", termsafe.Line(a.Runtime), a.Confinement.text())
	} else {
		fmt.Fprintf(w, "  runtime:   %s, unsandboxed: its code runs with your privileges\n", termsafe.Line(a.Runtime))
	}
	if r := a.Revoked; r != nil {
		fmt.Fprintf(w, "  revoked:   by %s on %s: %s (%s)\n", termsafe.Line(r.Issuer), termsafe.Line(r.Date), termsafe.Line(r.Reason), termsafe.Escape(r.List))
	}
	if a.Disabled {
		fmt.Fprintf(w, "  disabled:  by %s: nothing of it runs until %s\n", termsafe.Line(a.DisabledBy), commandLine("plugins", "enable", a.Name))
	}
	fmt.Fprintf(w, "  granted:   %s\n", capsText(a.Granted))
	fmt.Fprintf(w, "  requested: %s\n", capsText(a.Requested))
	for _, h := range slices.Sorted(maps.Keys(a.Hooks)) {
		fmt.Fprintf(w, "  hook %-14s %s\n", termsafe.Escape(h)+":", termsafe.Escape(a.Hooks[h]))
	}
	for _, warning := range a.Warnings {
		fmt.Fprintf(w, "  %s %s\n", st.Warn("!"), termsafe.EscapeText(warning))
	}
}

func capsText(c capsJSON) string {
	var out []string
	for _, k := range c.caps.List() {
		out = append(out, c.caps.Label(k))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
