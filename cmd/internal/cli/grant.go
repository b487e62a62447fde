package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type grantOptions struct {
	Name  string
	Items []string
	Yes   bool
	JSON  bool
}

func newGrantCmd(f *Factory) *cobra.Command {
	opts := &grantOptions{}
	cmd := &cobra.Command{
		Use:   "grant <name> [CAP...]",
		Short: "Grant an installed plugin more of what it requests, without reinstalling it",
		Long: `Grant an installed plugin capabilities (exec, store, metadata, network,
filesystem, environment) or its hooks, from what its installed plugin.toml
requests. Naming a capability is consent to it, as install's --grant is: for
an unverified source, that is the only way exec, network, environment and
hooks are granted.

env:NAME grants one environment variable its manifest lists under
environment (a name, or a prefix such as AWS_*); environment grants all of
them. A plugin that lists none (every plugin written for the Rust fledge)
may be granted any variable by naming it. Without it, a native plugin gets
only the base environment (locale, terminal, PATH, HOME, toolchains,
FLEDGE_*), and says on stderr which variable it was not given.

--yes grants everything else it requests that install --yes would approve.
With neither names nor --yes, on a terminal, a form shows what it requests
with what is granted now selected, to change both ways.

hooks approves every hook the plugin declares, exactly as shown by
'fledge plugins info': post_remove then runs when it is removed, and an
update runs an unchanged build or post_install hook without asking.

The change applies from the plugin's next run.`,
		Example: `  fledge plugins grant hello exec
  fledge plugins grant fledge-plugin-deps store metadata
  fledge plugins grant pg env:DATABASE_URL
  fledge plugins grant hello --yes`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("grant needs the plugin's name: fledge plugins grant <name> CAP...")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name, opts.Items = args[0], args[1:]
			return grantRun(c.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "also grant what install --yes would approve (for unverified sources, not "+orList(install.UnverifiedGrants())+")")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON result")
	cmd.ValidArgsFunction = completePluginThenCapabilities(f)
	return cmd
}

// grantDoc is the result of grant and revoke.
type grantDoc struct {
	SchemaVersion int    `json:"schema_version"`
	Action        string `json:"action"`
	Plugin        string `json:"plugin"`
	Version       string `json:"version"`
	TrustTier     string `json:"trust_tier"`
	// Changed lists the items granted (or revoked) by this change;
	// Unchanged those named that already were so.
	Changed   []string `json:"changed"`
	Unchanged []string `json:"unchanged"`
	// Consent says how each item granted was approved: named, yes or
	// terminal (empty for revoke).
	Consent map[string]string `json:"consent"`
	// Capabilities is what is granted now, PreviousCapabilities before.
	Capabilities         capsJSON          `json:"capabilities"`
	PreviousCapabilities capsJSON          `json:"previous_capabilities"`
	Requested            capsJSON          `json:"requested"`
	ApprovedHooks        map[string]string `json:"approved_hooks"`
}

// grantInstaller is the installer grant and revoke change grants with. A
// policy that cannot be read refuses grants, never revokes: withdrawing
// only narrows.
func grantInstaller(f *Factory, revoking bool) (*install.Installer, error) {
	store, paths, err := f.Lockfile()
	if err != nil {
		return nil, err
	}
	set, err := loadSettings(f, paths)
	if err != nil && (set == nil || !revoking) {
		return nil, err
	}
	return &install.Installer{Paths: paths, Store: store, Settings: noteTrust(f.IO.ErrOut, set), Log: f.IO.ErrOut, Now: f.Now,
		Journal: grantLog(f, paths), Unconfined: unconfinedBy(f)}, nil
}

func grantRun(ctx context.Context, f *Factory, opts *grantOptions) error {
	items, err := parseItems(opts.Items)
	if err != nil {
		return err
	}
	in, err := grantInstaller(f, false)
	if err != nil {
		return err
	}
	ch := install.GrantChange{Plugin: opts.Name, Grant: items, Yes: opts.Yes}
	if len(items) == 0 && !opts.Yes {
		if !f.IO.CanPrompt() {
			return usageErrorf("name what to grant (%s), or --yes for what install --yes would approve", strings.Join(grantable(), ", "))
		}
		if ch, err = askGrantChange(ctx, f, in, opts.Name); err != nil {
			return err
		}
		if len(ch.Grant)+len(ch.Revoke) == 0 {
			fmt.Fprintln(f.IO.ErrOut, "Nothing changed.")
			return nil
		}
	}
	res, err := in.ChangeGrants(ch)
	if err != nil {
		return withApprovalHint(err, func(ae *install.ApprovalError) string {
			set := map[string]bool{}
			for _, it := range append(append([]string(nil), ae.Approved...), ae.Missing...) {
				set[it] = true
			}
			return commandLine(append([]string{"plugins", "grant", opts.Name}, install.SortedGrants(set)...)...)
		})
	}
	for _, d := range res.PolicyDenied {
		fmt.Fprintf(f.IO.ErrOut, "policy: %s cannot be granted %s: %s\n", termsafe.Escape(res.Plugin), d.Item, termsafe.EscapeText(d.Text()))
	}
	return printGrantChange(f, "grant", res, opts.JSON)
}

// parseItems checks grant names given as arguments (each may be a
// comma-separated list).
func parseItems(args []string) ([]string, error) {
	set, err := install.ParseGrants(args)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if set != nil && len(set) == 0 {
		return nil, usageErrorf("%q names nothing to change: name the capabilities (or hooks)", install.GrantNone)
	}
	return install.SortedGrants(set), nil
}

// askGrantChange shows what an installed plugin requests with what it is
// granted now selected, and returns the change to what the user chose.
func askGrantChange(ctx context.Context, f *Factory, in *install.Installer, name string) (install.GrantChange, error) {
	file, err := in.Store.Load()
	if err != nil {
		return install.GrantChange{}, err
	}
	p, err := file.Resolve(name)
	if err != nil {
		return install.GrantChange{}, err
	}
	r, _, err := install.InstalledRequest(in.Paths, p, in.Settings.Tier(p))
	if err != nil {
		return install.GrantChange{}, err
	}
	if r.Empty() {
		return install.GrantChange{}, fmt.Errorf("%s requests nothing that can be granted", p.Name)
	}
	requested := r.Capabilities
	// The form offers only what the admin policy allows: choosing a
	// forbidden item could only be refused.
	r, denied := in.Offerable(r)
	for _, d := range denied {
		fmt.Fprintf(f.IO.ErrOut, "policy: %s cannot be granted %s: %s\n", termsafe.Escape(p.Name), d.Item, termsafe.EscapeText(d.Text()))
	}
	if r.Empty() {
		return install.GrantChange{}, policy.Deny(p.Name, denied...)
	}
	now := install.Grants{Capabilities: p.Capabilities, Hooks: p.Hooks}
	r.Installed = &install.Installed{Version: p.Version, Commit: p.Commit, Grants: now, Requested: requested}
	r.Source = entrySourceArg(p)
	r.Unconfined = unconfinedFor(f, p)
	showRequest(f.IO.ErrOut, r)
	fmt.Fprintf(f.IO.ErrOut, "  granted now: %s\n", itemsText(now.Items()))
	review := hookLines("Its hooks (granting hooks lets them run, exactly as shown):", r.Hooks)
	for _, l := range review {
		fmt.Fprintln(f.IO.ErrOut, l)
	}
	chosen, err := chooseGrants(ctx, f, r, false, review)
	if err != nil {
		return install.GrantChange{}, err
	}
	ch := install.GrantChange{Plugin: p.Name, Interactive: true}
	for _, it := range r.Items() {
		switch {
		case chosen[it] && !r.Current(it):
			ch.Grant = append(ch.Grant, it)
		case !chosen[it] && now.Has(it):
			ch.Revoke = append(ch.Revoke, it)
		}
	}
	return ch, nil
}

// printGrantChange reports what grant or revoke did.
func printGrantChange(f *Factory, action string, res *install.GrantResult, asJSON bool) error {
	changed := res.Granted
	if action == "revoke" {
		changed = res.Revoked
	}
	if asJSON {
		doc := grantDoc{SchemaVersion: SchemaVersion, Action: action, Plugin: res.Plugin, Version: res.Version,
			TrustTier: string(res.Tier), Changed: orEmpty(changed), Unchanged: orEmpty(res.Unchanged), Consent: res.Consent,
			Capabilities: toCapsJSON(res.After.Capabilities), PreviousCapabilities: toCapsJSON(res.Before.Capabilities),
			Requested: toCapsJSON(res.Request.Capabilities), ApprovedHooks: res.After.Hooks}
		if doc.Consent == nil {
			doc.Consent = map[string]string{}
		}
		if doc.ApprovedHooks == nil {
			doc.ApprovedHooks = map[string]string{}
		}
		// A grant and a revoke chosen together in the form: both show.
		if action == "grant" && len(res.Revoked) > 0 {
			doc.Action = "change"
			doc.Changed = append(orEmpty(res.Granted), res.Revoked...)
		}
		return writeJSON(f.IO.Out, doc)
	}
	w := f.IO.Out
	name := termsafe.Escape(res.Plugin)
	switch {
	case len(res.Granted) > 0 || len(res.Revoked) > 0:
		var parts []string
		if len(res.Granted) > 0 {
			parts = append(parts, "granted "+strings.Join(res.Granted, ", "))
		}
		if len(res.Revoked) > 0 {
			parts = append(parts, "revoked "+strings.Join(res.Revoked, ", "))
		}
		fmt.Fprintf(w, "✓ %s: %s (from its next run)\n", name, strings.Join(parts, "; "))
	default:
		fmt.Fprintf(w, "✓ %s: nothing to change\n", name)
	}
	if len(res.Unchanged) > 0 {
		// Said as it is: a revoke of what was never granted changes nothing.
		state := "already granted"
		if action == "revoke" {
			state = "not granted"
		}
		fmt.Fprintf(w, "  %s: %s\n", state, strings.Join(res.Unchanged, ", "))
	}
	var denied []string
	for _, it := range res.Request.Items() {
		if !res.After.Has(it) {
			denied = append(denied, it)
		}
	}
	line := "  granted now: " + itemsText(res.After.Items())
	if len(denied) > 0 {
		line += "; not granted: " + strings.Join(denied, ", ")
	}
	fmt.Fprintln(w, line)
	if slices.Contains(res.Granted, install.GrantHooks) {
		for _, h := range slices.Sorted(maps.Keys(res.After.Hooks)) {
			fmt.Fprintf(w, "  approved hook %-14s %s\n", h+":", termsafe.Escape(res.After.Hooks[h]))
		}
	}
	return nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
