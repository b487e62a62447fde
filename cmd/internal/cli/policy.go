package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
	"github.com/corvidlabs/fledge-go/trust"
)

// CodePolicyDenied: the admin policy refuses what was asked (or cannot be
// read, and so refuses everything it governs).
const CodePolicyDenied = "policy_denied"

// settingsInputs says where this home's settings are read from:
// config.toml, the system policy (at the Factory's SystemPolicy path) and
// the files FLEDGE_POLICY lists.
func settingsInputs(f *Factory, paths home.Paths) settings.Inputs {
	return fastrun.SettingsInputs(paths, f.SystemPolicy, f.Getenv)
}

// loadSettings reads config.toml and the admin policy, once per command.
// When the policy cannot be read the error comes with the settings of
// config.toml alone (see settings.Load): commands that only describe
// warn and go on; the rest stop.
func loadSettings(f *Factory, paths home.Paths) (*settings.Settings, error) {
	return settings.Load(settingsInputs(f, paths))
}

// describeSettings is loadSettings for commands that only describe
// plugins (list, info, audit, tools, help): a policy that cannot be read
// is returned as polErr, for them to report, with the settings of
// config.toml alone; err is any other failure (config.toml's).
func describeSettings(f *Factory, paths home.Paths) (set *settings.Settings, polErr, err error) {
	set, err = loadSettings(f, paths)
	var invalid *policy.InvalidError
	if errors.As(err, &invalid) {
		return set, err, nil
	}
	return set, nil, err
}

// noteTrust notes on w the owners of config.toml's [trust] that the
// policy drops, and returns s.
func noteTrust(w io.Writer, s *settings.Settings) *settings.Settings {
	_, dropped := s.Trust()
	for _, d := range dropped {
		fmt.Fprintf(w, "note: policy: %s\n", termsafe.EscapeText(d.Text()))
	}
	return s
}

// grantLog is the grant log of this home, stamped with the Factory's clock.
func grantLog(f *Factory, paths home.Paths) *grantlog.Log {
	return fastrun.GrantLog(paths, f.Now)
}

type policyOptions struct {
	JSON bool
}

func newPolicyCmd(f *Factory) *cobra.Command {
	opts := &policyOptions{}
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Show the admin policy in force and where each rule comes from",
		Long: `Show the admin policy: the system file (/etc/fledge/policy.toml; on macOS
/Library/Application Support/fledge/policy.toml, on Windows
%ProgramData%\fledge\policy.toml), then the files FLEDGE_POLICY lists
(separated as PATH is), then [policy] in config.toml.

Each layer can only narrow what the ones before allow: sources must pass
every allow list and no deny list, capability limits intersect per trust
tier, hooks run only where every layer lets them, the strictest pin and the
longest min_tag_age win, config.toml may trust only owners every
[trust] owners rule lists, and agents are offered only the tools every
[tools] allow list matches and no [tools] deny does (a tool's name, or
plugin.command; globs such as "plugin.*"). A refusal is the error code
policy_denied.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return policyRun(f, opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	return cmd
}

type originJSON struct {
	File string `json:"file"`
	Rule string `json:"rule"`
}

type policyDoc struct {
	SchemaVersion int `json:"schema_version"`
	// Active says whether any layer applies.
	Active bool `json:"active"`
	// System is the system policy's path and whether it is there.
	System      string            `json:"system"`
	SystemFound bool              `json:"system_found"`
	Layers      []policyLayerJSON `json:"layers"`
	Sources     struct {
		Allow []allowJSON `json:"allow"`
		Deny  []denyJSON  `json:"deny"`
	} `json:"sources"`
	// Capabilities and Hooks hold every tier: null means no limit.
	Capabilities map[string]*limitJSON `json:"capabilities"`
	Hooks        map[string]*hooksJSON `json:"hooks"`
	Pins         struct {
		Require   *settingJSON `json:"require"`
		MinTagAge *settingJSON `json:"min_tag_age"`
	} `json:"pins"`
	Trust struct {
		Owners *limitJSON `json:"owners"`
	} `json:"trust"`
	// Tools are [tools] allow and deny: which commands agents are offered.
	Tools struct {
		Allow []allowJSON `json:"allow"`
		Deny  []denyJSON  `json:"deny"`
	} `json:"tools"`
	// Confinement is [confinement] require and allow_off: null when no
	// layer sets them (not required; may be turned off).
	Confinement struct {
		Require  *boolSettingJSON `json:"require"`
		AllowOff *boolSettingJSON `json:"allow_off"`
	} `json:"confinement"`
	// Protected says whether the system policy is where only root can
	// change it (null when there is none); UnprotectedReason says, when
	// not, what is wrong and how to fix it. Protection is [protection]
	// require: null when no layer sets it (policyfleet.go).
	Protected         *bool  `json:"protected"`
	UnprotectedReason string `json:"unprotected_reason"`
	// DropIns are the system policy's drop-in files read (policy.d/*.toml
	// beside it), each with its own protection; DropInsIgnored the other
	// entries of that directory, which are not read.
	DropIns        []dropInJSON `json:"drop_ins"`
	DropInsIgnored []string     `json:"drop_ins_ignored"`
	Protection     struct {
		Require *boolSettingJSON `json:"require"`
	} `json:"protection"`
	// Required are the [[required]] plugins; Revocation the revocation
	// lists named and the entries read from them (policyfleet.go).
	Required   []requiredJSON `json:"required"`
	Revocation struct {
		Lists   []revocationListJSON `json:"lists"`
		Revoked []revokedJSON        `json:"revoked"`
		Errors  []string             `json:"errors"`
	} `json:"revocation"`
	// Provenance is [provenance]: the allowed-signers files the policy
	// names, and what each require rule wants of which sources.
	Provenance struct {
		AllowedSigners []signersJSON        `json:"allowed_signers"`
		Require        []provenanceRuleJSON `json:"require"`
	} `json:"provenance"`
}

type signersJSON struct {
	originJSON
	Path string `json:"path"`
}

type provenanceRuleJSON struct {
	originJSON
	AppliesTo string `json:"applies_to"`
	Level     string `json:"level"`
}

type boolSettingJSON struct {
	Value bool       `json:"value"`
	From  originJSON `json:"from"`
}

type policyLayerJSON struct {
	File  string `json:"file"`
	Scope string `json:"scope"`
}

type allowJSON struct {
	originJSON
	Patterns []string `json:"patterns"`
}

type denyJSON struct {
	originJSON
	Pattern string `json:"pattern"`
}

type limitJSON struct {
	Allowed []string     `json:"allowed"`
	From    []originJSON `json:"from"`
}

type hooksJSON struct {
	Allowed bool         `json:"allowed"`
	From    []originJSON `json:"from"`
}

type settingJSON struct {
	Value string     `json:"value"`
	From  originJSON `json:"from"`
}

func origins(list []policy.Origin) []originJSON {
	out := make([]originJSON, len(list))
	for i, o := range list {
		out[i] = originJSON(o)
	}
	return out
}

func policyRun(f *Factory, opts *policyOptions) error {
	paths, err := f.Paths()
	if err != nil {
		return err
	}
	set, err := loadSettings(f, paths)
	if err != nil {
		return err
	}
	if set, err = refreshRevocations(context.Background(), f, paths, set); err != nil {
		return err
	}
	pol := set.Policy()
	e := pol.Effective()
	doc := policyDoc{SchemaVersion: SchemaVersion, Active: !pol.Empty(), System: pol.System, SystemFound: pol.SystemFound,
		Layers: []policyLayerJSON{}, Capabilities: map[string]*limitJSON{}, Hooks: map[string]*hooksJSON{}}
	doc.Sources.Allow, doc.Sources.Deny = []allowJSON{}, []denyJSON{}
	doc.Tools.Allow, doc.Tools.Deny = []allowJSON{}, []denyJSON{}
	for _, a := range e.ToolAllow {
		doc.Tools.Allow = append(doc.Tools.Allow, allowJSON{originJSON: originJSON(a.Origin), Patterns: a.Patterns})
	}
	for _, d := range e.ToolDeny {
		doc.Tools.Deny = append(doc.Tools.Deny, denyJSON{originJSON: originJSON(d.Origin), Pattern: d.Pattern})
	}
	for _, l := range e.Layers {
		doc.Layers = append(doc.Layers, policyLayerJSON(l))
	}
	for _, a := range e.Allow {
		doc.Sources.Allow = append(doc.Sources.Allow, allowJSON{originJSON: originJSON(a.Origin), Patterns: a.Patterns})
	}
	for _, d := range e.Deny {
		doc.Sources.Deny = append(doc.Sources.Deny, denyJSON{originJSON: originJSON(d.Origin), Pattern: d.Pattern})
	}
	for _, t := range trust.Tiers {
		tier := string(t)
		doc.Capabilities[tier], doc.Hooks[tier] = nil, nil
		if c := e.Capabilities[tier]; c != nil {
			doc.Capabilities[tier] = &limitJSON{Allowed: c.Allowed, From: origins(c.From)}
		}
		if h := e.Hooks[tier]; h != nil {
			doc.Hooks[tier] = &hooksJSON{Allowed: h.Allowed, From: origins(h.From)}
		}
	}
	if r := e.Require; r != nil {
		doc.Pins.Require = &settingJSON{Value: r.Value, From: originJSON(r.From)}
	}
	if a := e.MinTagAge; a != nil {
		doc.Pins.MinTagAge = &settingJSON{Value: policy.FormatAge(a.Value), From: originJSON(a.From)}
	}
	if o := e.Owners; o != nil {
		doc.Trust.Owners = &limitJSON{Allowed: o.Allowed, From: origins(o.From)}
	}
	if r := e.ConfineRequire; r != nil {
		doc.Confinement.Require = &boolSettingJSON{Value: r.Value, From: originJSON(r.From)}
	}
	if a := e.ConfineAllowOff; a != nil {
		doc.Confinement.AllowOff = &boolSettingJSON{Value: a.Value, From: originJSON(a.From)}
	}
	fleetPolicy(pol, e, &doc)
	doc.Provenance.AllowedSigners, doc.Provenance.Require = []signersJSON{}, []provenanceRuleJSON{}
	for _, s := range e.Signers {
		doc.Provenance.AllowedSigners = append(doc.Provenance.AllowedSigners, signersJSON{originJSON: originJSON(s.Origin), Path: s.Pattern})
	}
	for _, r := range e.ProvenanceRequire {
		doc.Provenance.Require = append(doc.Provenance.Require, provenanceRuleJSON{originJSON: originJSON(r.Origin), AppliesTo: r.AppliesTo, Level: r.Level})
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, doc)
	}
	printPolicy(f.IO.Out, doc)
	printFleetPolicy(f.IO.Out, doc)
	return nil
}

func printPolicy(w io.Writer, doc policyDoc) {
	sys := "not present"
	if doc.SystemFound {
		sys = "applies"
	}
	if doc.System == "" {
		fmt.Fprintln(w, "system policy: none")
	} else {
		fmt.Fprintf(w, "system policy: %s (%s)\n", termsafe.Escape(doc.System), sys)
	}
	if !doc.Active {
		fmt.Fprintln(w, "No admin policy applies: nothing is narrowed.")
		return
	}
	fmt.Fprintln(w, "layers (each can only narrow the ones before):")
	for i, l := range doc.Layers {
		fmt.Fprintf(w, "  %d. %s (%s)\n", i+1, termsafe.Escape(l.File), l.Scope)
	}
	from := func(list []originJSON) string {
		var s []string
		for _, o := range list {
			s = append(s, o.Rule+" in "+o.File)
		}
		return termsafe.Escape(strings.Join(s, "; "))
	}
	allowDeny := func(title, any, none string, allow []allowJSON, deny []denyJSON) {
		fmt.Fprintln(w, title)
		if len(allow)+len(deny) == 0 {
			fmt.Fprintln(w, "  "+any)
		}
		for _, a := range allow {
			list := none
			if len(a.Patterns) > 0 {
				list = strings.Join(a.Patterns, ", ")
			}
			fmt.Fprintf(w, "  allow only: %s   (%s)\n", termsafe.Escape(list), from([]originJSON{a.originJSON}))
		}
		for _, d := range deny {
			fmt.Fprintf(w, "  deny:       %s   (%s)\n", termsafe.Escape(d.Pattern), from([]originJSON{d.originJSON}))
		}
	}
	allowDeny("sources:", "any source", "nothing", doc.Sources.Allow, doc.Sources.Deny)
	fmt.Fprintln(w, "the most each tier may be granted:")
	for _, t := range trust.Tiers {
		tier := string(t)
		c := doc.Capabilities[tier]
		if c == nil {
			fmt.Fprintf(w, "  %-11s no limit\n", tier+":")
			continue
		}
		fmt.Fprintf(w, "  %-11s %s   (%s)\n", tier+":", itemsText(c.Allowed), from(c.From))
	}
	fmt.Fprintln(w, "hooks and build commands:")
	for _, t := range trust.Tiers {
		tier := string(t)
		h := doc.Hooks[tier]
		switch {
		case h == nil:
			fmt.Fprintf(w, "  %-11s may run\n", tier+":")
		case h.Allowed:
			fmt.Fprintf(w, "  %-11s may run   (%s)\n", tier+":", from(h.From))
		default:
			fmt.Fprintf(w, "  %-11s never run   (%s)\n", tier+":", from(h.From))
		}
	}
	fmt.Fprintln(w, "pins:")
	if r := doc.Pins.Require; r != nil {
		fmt.Fprintf(w, "  require:     %s   (%s)\n", r.Value, from([]originJSON{r.From}))
	} else {
		fmt.Fprintln(w, "  require:     any ref")
	}
	if a := doc.Pins.MinTagAge; a != nil {
		fmt.Fprintf(w, "  min_tag_age: %s   (%s)\n", a.Value, from([]originJSON{a.From}))
	} else {
		fmt.Fprintln(w, "  min_tag_age: none")
	}
	fmt.Fprintln(w, "owners config.toml may trust:")
	if o := doc.Trust.Owners; o != nil {
		fmt.Fprintf(w, "  %s   (%s)\n", termsafe.Escape(itemsText(o.Allowed)), from(o.From))
	} else {
		fmt.Fprintln(w, "  any")
	}
	allowDeny("tools offered to agents:", "every installed command", "none", doc.Tools.Allow, doc.Tools.Deny)
	fmt.Fprintln(w, "kernel confinement of native plugins:")
	if r := doc.Confinement.Require; r != nil && r.Value {
		fmt.Fprintf(w, "  required:    yes, a plugin the kernel cannot confine here does not run   (%s)\n", from([]originJSON{r.From}))
	} else {
		fmt.Fprintln(w, "  required:    no")
	}
	if a := doc.Confinement.AllowOff; a != nil && !a.Value {
		fmt.Fprintf(w, "  turning off: refused   (%s)\n", from([]originJSON{a.From}))
	} else {
		fmt.Fprintln(w, "  turning off: allowed")
	}
	fmt.Fprintln(w, "signatures (provenance):")
	if len(doc.Provenance.Require) == 0 {
		fmt.Fprintln(w, "  required:    none")
	}
	for _, r := range doc.Provenance.Require {
		fmt.Fprintf(w, "  required:    %s for %s, by a trusted signer   (%s)\n", r.Level, termsafe.Escape(r.AppliesTo), from([]originJSON{r.originJSON}))
	}
	for _, s := range doc.Provenance.AllowedSigners {
		fmt.Fprintf(w, "  signers:     %s   (%s)\n", termsafe.Escape(s.Path), from([]originJSON{s.originJSON}))
	}
}
