package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type updateOptions struct {
	consentFlags
	Names  []string
	DryRun bool
	JSON   bool
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
refused or failed, the installed version stays exactly as it was.`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			return updateRun(c.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.DryRun, "dry-run", false, "show what would change, change nothing")
	opts.consentFlags.register(fl)
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON result")
	return cmd
}

type hookChangeJSON struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

type updateResultJSON struct {
	Name              string           `json:"name"`
	Status            string           `json:"status"`
	Detail            string           `json:"detail"`
	From              install.Rev      `json:"from"`
	To                *install.Rev     `json:"to"`
	AddedCapabilities []string         `json:"added_capabilities"`
	HookChanges       []hookChangeJSON `json:"hook_changes"`
	Escalation        bool             `json:"escalation"`
	NewerTags         []string         `json:"newer_tags"`
	Error             *jsonError       `json:"error"`
}

type updateSummary struct {
	Total       int `json:"total"`
	Updated     int `json:"updated"`
	WouldUpdate int `json:"would_update"`
	UpToDate    int `json:"up_to_date"`
	Skipped     int `json:"skipped"`
	Failed      int `json:"failed"`
}

type updateDoc struct {
	SchemaVersion int                `json:"schema_version"`
	Action        string             `json:"action"`
	DryRun        bool               `json:"dry_run"`
	Results       []updateResultJSON `json:"results"`
	Summary       updateSummary      `json:"summary"`
}

func updateRun(ctx context.Context, f *Factory, opts *updateOptions) error {
	in, _, err := newInstaller(f, opts.consentFlags, !opts.DryRun)
	if err != nil {
		return err
	}
	u := &install.Updater{Installer: in, DryRun: opts.DryRun}
	results, err := u.Update(ctx, opts.Names)
	if err != nil {
		return err
	}
	doc := updateDoc{SchemaVersion: SchemaVersion, Action: "update", DryRun: opts.DryRun, Results: []updateResultJSON{}}
	var failures []error
	for _, r := range results {
		j := updateResultJSON{Name: r.Name, Status: r.Status, Detail: termsafe.Text(r.Detail), From: r.From, To: r.To,
			AddedCapabilities: []string{}, HookChanges: []hookChangeJSON{}, Escalation: r.Escalation, NewerTags: []string{}}
		for _, c := range r.AddedCapabilities {
			j.AddedCapabilities = append(j.AddedCapabilities, string(c))
		}
		for _, h := range r.HookChanges {
			j.HookChanges = append(j.HookChanges, hookChangeJSON{Name: h.Name, From: termsafe.Text(h.From), To: termsafe.Text(h.To)})
		}
		j.NewerTags = append(j.NewerTags, r.NewerTags...)
		if r.Err != nil {
			failures = append(failures, r.Err)
			j.Error = toJSONError(r.Err)
		}
		doc.Results = append(doc.Results, j)
		switch r.Status {
		case install.StatusUpdated:
			doc.Summary.Updated++
		case install.StatusWouldUpdate:
			doc.Summary.WouldUpdate++
		case install.StatusUpToDate:
			doc.Summary.UpToDate++
		case install.StatusSkipped:
			doc.Summary.Skipped++
		case install.StatusFailed:
			doc.Summary.Failed++
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
	if len(doc.Results) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No plugins installed.")
		return
	}
	for _, r := range doc.Results {
		name := termsafe.Line(r.Name)
		switch r.Status {
		case install.StatusUpdated, install.StatusWouldUpdate:
			verb := "updated"
			if r.Status == install.StatusWouldUpdate {
				verb = "would update"
			}
			fmt.Fprintf(w, "↑ %s %s: %s → %s\n", name, verb, revText(r.From), revText(*r.To))
		case install.StatusUpToDate:
			fmt.Fprintf(w, "✓ %s is up to date (%s)\n", name, revText(r.From))
		case install.StatusSkipped:
			fmt.Fprintf(w, "- %s skipped: %s\n", name, termsafe.Line(r.Detail))
		case install.StatusFailed:
			fmt.Fprintf(w, "✗ %s: %s\n", name, termsafe.Text(r.Detail))
			if r.Error != nil && r.Error.Hint != "" {
				fmt.Fprintf(w, "  hint: %s\n", r.Error.Hint)
			}
		}
		if len(r.AddedCapabilities) > 0 {
			fmt.Fprintf(w, "  new capabilities: %s\n", strings.Join(r.AddedCapabilities, ", "))
		}
		for _, h := range r.HookChanges {
			switch {
			case h.From == "":
				fmt.Fprintf(w, "  new hook %s: %s\n", h.Name, termsafe.Line(h.To))
			case h.To == "":
				fmt.Fprintf(w, "  hook %s removed\n", h.Name)
			default:
				fmt.Fprintf(w, "  hook %s changed: %s → %s\n", h.Name, termsafe.Line(h.From), termsafe.Line(h.To))
			}
		}
		if r.Detail != "" && r.Status != install.StatusFailed && r.Status != install.StatusSkipped {
			fmt.Fprintf(w, "  %s\n", termsafe.Line(r.Detail))
		}
		if len(r.NewerTags) > 0 {
			fmt.Fprintf(w, "  newer tags: %s\n", termsafe.Line(strings.Join(r.NewerTags[:min(5, len(r.NewerTags))], ", ")))
		}
	}
}

func revText(r install.Rev) string {
	s := termsafe.Line(r.Version)
	if r.Commit != "" {
		s += " (" + r.Commit[:min(12, len(r.Commit))] + ")"
	}
	if s == "" {
		s = "unknown"
	}
	return s
}
