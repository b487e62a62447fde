package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type updateOptions struct {
	consentFlags
	provenance provenanceFlag
	Names      []string
	DryRun     bool
	Defaults   bool
	Force      bool
	JSON       bool
}

func newUpdateCmd(f *Factory) *cobra.Command {
	opts := &updateOptions{}
	cmd := &cobra.Command{
		Use:   "update [<name>...]",
		Short: "Update plugins to their target revisions, approving anything new they ask for",
		Long: `Update installed plugins (all when no name is given). Constraint pins (@^1.2) move to
the highest matching tag, branch-tracking plugins to the branch head; exact pins (a tag or
commit) stay put and report newer tags; live-linked local plugins are skipped.

A new version that requests new capabilities, new or changed hooks, or a new build
command is an escalation: it needs approval under the same rules as install. Declined,
refused or failed, the installed version stays exactly as it was.

With --defaults, only the curated default plugins are updated, and their tag
pins move to the newest release tag (as the Rust fledge does).

A branch whose new head does not descend from the installed commit was force-pushed
(rewritten or moved back): update reports it and follows it only with --force.`,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Defaults && len(args) > 0 {
				return usageErrorf("--defaults updates the curated default plugins; do not name plugins with it")
			}
			opts.Names = args
			return updateRun(c.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.DryRun, "dry-run", false, "show what would change, change nothing")
	fl.BoolVar(&opts.Defaults, "defaults", false, "update only the curated default plugins, moving their pins to the newest release")
	fl.BoolVar(&opts.Force, "force", false, "follow a branch that was force-pushed")
	opts.consentFlags.register(fl)
	opts.provenance.register(fl)
	registerGrantCompletion(cmd)
	cmd.ValidArgsFunction = completePluginNames(f, true)
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON result")
	return cmd
}

type hookChangeJSON struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

// updateResultJSON is one plugin's update: a superset of the Rust fledge's
// result (src/plugin/update.rs, update_one_plugin and rebuild_after_fetch).
type updateResultJSON struct {
	Name string `json:"name"`
	// Status is Rust's word: updated, skipped or failed; State is fledge's
	// own, which also tells up_to_date and would_update apart.
	Status string `json:"status"`
	State  string `json:"state"`
	Detail string `json:"detail"`
	// Version and Commands are the plugin's after the update (or as they
	// stay); PinnedRef is its pin, LatestTag the newest release above an
	// exact pin, and PreviousRef and NewRef the pin before and after when
	// the update moved it. Each is left out when it has no value, as Rust
	// leaves them out (update.rs): a script tests for the key.
	Version           string           `json:"version"`
	Commands          []string         `json:"commands"`
	PinnedRef         *string          `json:"pinned_ref,omitempty"`
	LatestTag         *string          `json:"latest_tag,omitempty"`
	PreviousRef       *string          `json:"previous_ref,omitempty"`
	NewRef            *string          `json:"new_ref,omitempty"`
	From              install.Rev      `json:"from"`
	To                *install.Rev     `json:"to"`
	AddedCapabilities []string         `json:"added_capabilities"`
	HookChanges       []hookChangeJSON `json:"hook_changes"`
	Escalation        bool             `json:"escalation"`
	NewerTags         []string         `json:"newer_tags"`
	ForcePushed       bool             `json:"force_pushed"`
	// Provenance is who signed the revision fetched (null when nothing
	// was fetched): list's object.
	Provenance *provenanceJSON `json:"provenance"`
	Error      *jsonError      `json:"error"`
}

// updateSummary counts results by Rust's status (total, updated, skipped,
// failed) and by fledge's states that Rust counts as skipped.
type updateSummary struct {
	Total       int `json:"total"`
	Updated     int `json:"updated"`
	WouldUpdate int `json:"would_update"`
	UpToDate    int `json:"up_to_date"`
	Skipped     int `json:"skipped"`
	Failed      int `json:"failed"`
}

type updateDoc struct {
	SchemaVersion int    `json:"schema_version"`
	Action        string `json:"action"`
	// Scope is Rust's "all" (no names), "single" (one name) or
	// "defaults" (--defaults), or "multiple" when several were named.
	Scope   string             `json:"scope"`
	DryRun  bool               `json:"dry_run"`
	Results []updateResultJSON `json:"results"`
	Summary updateSummary      `json:"summary"`
}

// rustStatus is the Rust fledge's word for an update's outcome: it knows
// updated, skipped and failed; a plugin left as it was (up to date, or
// only checked in a dry run) is skipped there.
func rustStatus(r install.UpdateResult) string {
	switch r.Status {
	case install.StatusUpdated:
		return "updated"
	case install.StatusFailed:
		return "failed"
	case install.StatusSkipped, install.StatusUpToDate, install.StatusWouldUpdate:
		return "skipped"
	}
	if r.Err != nil {
		return "failed"
	}
	return "skipped"
}

func updateRun(ctx context.Context, f *Factory, opts *updateOptions) error {
	in, _, err := newInstaller(ctx, f, opts.consentFlags, !opts.DryRun)
	if err != nil {
		return err
	}
	if err := opts.provenance.apply(in); err != nil {
		return err
	}
	doc := updateDoc{SchemaVersion: SchemaVersion, Action: "update", Scope: "all", DryRun: opts.DryRun, Results: []updateResultJSON{}}
	switch {
	case opts.Defaults:
		doc.Scope = "defaults"
	case len(opts.Names) == 1:
		doc.Scope = "single"
	case len(opts.Names) > 1:
		doc.Scope = "multiple"
	}
	names := opts.Names
	if opts.Defaults {
		if names, err = installedDefaults(in); err != nil {
			return err
		}
		if len(names) == 0 {
			if opts.JSON {
				return writeJSON(f.IO.Out, doc)
			}
			fmt.Fprintln(f.IO.ErrOut, "No default plugins are installed. Install them with: fledge plugins install --defaults")
			return nil
		}
	}
	u := &install.Updater{Installer: in, DryRun: opts.DryRun, MovePins: opts.Defaults, Force: opts.Force}
	results, err := u.Update(ctx, names)
	if err != nil {
		return err
	}
	// What each plugin is now (after the update, or as it stayed).
	now := map[string]*lockfile.Plugin{}
	if file, err := in.Store.Load(); err == nil {
		for i := range file.Plugins {
			now[file.Plugins[i].Name] = &file.Plugins[i]
		}
	}
	var failures []error
	for _, r := range results {
		j := updateResultJSON{Name: r.Name, Status: rustStatus(r), State: r.Status, Detail: termsafe.EscapeText(r.Detail),
			Version: r.From.Version, Commands: []string{}, PinnedRef: optional(r.From.Ref), From: r.From, To: r.To,
			AddedCapabilities: []string{}, HookChanges: []hookChangeJSON{}, Escalation: r.Escalation, NewerTags: []string{}, ForcePushed: r.ForcePushed}
		if p := now[r.Name]; p != nil {
			j.Version, j.PinnedRef = p.Version, optional(p.PinnedRef)
			j.Commands = append(j.Commands, p.Commands...)
		}
		if r.To != nil && r.To.Ref != r.From.Ref && r.Status != install.StatusFailed {
			j.PreviousRef, j.NewRef = optional(r.From.Ref), optional(r.To.Ref)
		}
		if len(r.NewerTags) > 0 {
			j.LatestTag = optional(r.NewerTags[0])
		}
		for _, c := range r.AddedCapabilities {
			j.AddedCapabilities = append(j.AddedCapabilities, string(c))
		}
		for _, h := range r.HookChanges {
			// Raw: the JSON encoding escapes what a terminal would obey.
			j.HookChanges = append(j.HookChanges, hookChangeJSON{Name: h.Name, From: h.From, To: h.To})
		}
		j.NewerTags = append(j.NewerTags, r.NewerTags...)
		if r.Provenance != nil {
			pj := toProvenanceJSON(r.Provenance)
			j.Provenance = &pj
		}
		if p := now[r.Name]; p != nil && r.Status == install.StatusSkipped && p.KindInfo().InstallFlag != "" {
			j.Detail += "; to refresh it, reinstall it: " + reinstallCommand(p)
		}
		if r.Err != nil {
			failures = append(failures, r.Err)
			j.Error = toJSONError(updateHint(r.Err, r.Name, now[r.Name], opts))
		}
		doc.Results = append(doc.Results, j)
		switch j.Status {
		case "updated":
			doc.Summary.Updated++
		case "skipped":
			doc.Summary.Skipped++
		case "failed":
			doc.Summary.Failed++
		}
		switch r.Status {
		case install.StatusWouldUpdate:
			doc.Summary.WouldUpdate++
		case install.StatusUpToDate:
			doc.Summary.UpToDate++
		}
	}
	doc.Summary.Total = len(doc.Results)
	if opts.JSON {
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
	} else {
		printUpdate(f, doc)
	}
	if len(failures) > 0 {
		return itemsFailed(failures)
	}
	return nil
}

func printUpdate(f *Factory, doc updateDoc) {
	w := f.IO.Out
	st := f.IO.OutStyle()
	if len(doc.Results) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No plugins installed.")
		return
	}
	for _, r := range doc.Results {
		name := termsafe.Escape(r.Name)
		switch r.State {
		case install.StatusUpdated, install.StatusWouldUpdate:
			verb := "updated"
			if r.State == install.StatusWouldUpdate {
				verb = "would update"
			}
			fmt.Fprintf(w, "%s %s %s: %s → %s\n", st.Info("↑"), name, verb, revText(r.From), revText(*r.To))
		case install.StatusUpToDate:
			fmt.Fprintf(w, "%s %s is up to date (%s)\n", st.OK("✓"), name, revText(r.From))
		case install.StatusSkipped:
			fmt.Fprintf(w, "%s %s skipped: %s\n", st.Dim("-"), name, termsafe.EscapeText(r.Detail))
		case install.StatusFailed:
			fmt.Fprintf(w, "%s %s: %s\n", st.Fail("✗"), name, termsafe.EscapeText(r.Detail))
			if r.Error != nil && r.Error.Hint != "" {
				fmt.Fprintf(w, "  %s %s\n", st.Info("hint:"), r.Error.Hint)
			}
		}
		if len(r.AddedCapabilities) > 0 {
			fmt.Fprintf(w, "  %s %s\n", st.Warn("newly requested:"), strings.Join(r.AddedCapabilities, ", "))
		}
		for _, h := range r.HookChanges {
			switch {
			case h.From == "":
				fmt.Fprintf(w, "  new hook %s: %s\n", h.Name, termsafe.Escape(h.To))
			case h.To == "":
				fmt.Fprintf(w, "  hook %s removed\n", h.Name)
			default:
				fmt.Fprintf(w, "  hook %s changed: %s → %s\n", h.Name, termsafe.Escape(h.From), termsafe.Escape(h.To))
			}
		}
		if r.Detail != "" && r.State != install.StatusFailed && r.State != install.StatusSkipped {
			fmt.Fprintf(w, "  %s\n", termsafe.EscapeText(r.Detail))
		}
		if len(r.NewerTags) > 0 {
			fmt.Fprintf(w, "  newer tags: %s\n", termsafe.Escape(strings.Join(r.NewerTags[:min(5, len(r.NewerTags))], ", ")))
		}
	}
}

// updateHint gives a plugin's failed update the hint that fixes it, as a
// command that works as printed.
func updateHint(err error, name string, p *lockfile.Plugin, opts *updateOptions) error {
	var moved *install.TagMovedError
	if errors.As(err, &moved) && p != nil {
		what := "if you trust the change, reinstall it"
		if moved.Older != "" {
			what = "to accept the older version, reinstall it"
		}
		return withCode(CodeTagMoved, err, what+": "+reinstallCommand(p))
	}
	return withApprovalHint(err, func(ae *install.ApprovalError) string {
		args := []string{"plugins", "update", name}
		if opts.Defaults { // only --defaults moves the pins as this run did
			args = []string{"plugins", "update", "--defaults"}
		}
		if opts.Force {
			args = append(args, "--force")
		}
		if opts.Yes { // what --yes approved for the others stays approved
			args = append(args, "--yes")
		}
		return retryWithGrants(ae, args...)
	})
}

// installedDefaults names the installed plugins that came from one of
// the curated default plugins.
func installedDefaults(in *install.Installer) ([]string, error) {
	file, err := in.Store.Load()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range file.Plugins {
		if !p.IsLocal() && registry.IsDefaultSource(p.Source, p.URL, in.GitHubBase) {
			names = append(names, p.Name)
		}
	}
	return names, nil
}

func revText(r install.Rev) string {
	s := termsafe.Escape(r.Version)
	if r.Commit != "" {
		s += " (" + r.Commit[:min(12, len(r.Commit))] + ")"
	}
	if s == "" {
		s = "unknown"
	}
	return s
}
