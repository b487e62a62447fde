package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"
	"oras.land/oras-go/v2/content/oci"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type syncOptions struct {
	consentFlags
	provenance provenanceFlag
	File       string
	Prune      bool
	JSON       bool
	// Policy syncs the admin policy's [[required]] plugins (syncpolicy.go).
	Policy bool
	// From is a bundle (fledge plugins bundle --out) to install from,
	// offline.
	From string
}

func newSyncCmd(f *Factory) *cobra.Command {
	opts := &syncOptions{}
	cmd := &cobra.Command{
		Use:   "sync --file <plugins.toml>",
		Short: "Make this machine's plugins match a plugins.toml from elsewhere, exactly",
		Long: `Install exactly the commits a plugins.toml records (a team's, a CI's), checking the
content hashes. The grants it records are a proposal, approved under the same rules
as install. Nothing is removed unless --prune is given.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Policy {
				return syncPolicyRun(c.Context(), f, opts)
			}
			if opts.File == "" {
				return usageErrorf("sync needs --file <plugins.toml>, or --policy for the admin policy's required plugins")
			}
			return syncRun(c.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.File, "file", "", "the plugins.toml to match")
	opts.consentFlags.register(fl)
	opts.provenance.register(fl)
	registerGrantCompletion(cmd)
	fl.BoolVar(&opts.Prune, "prune", false, "remove installed plugins the file does not list")
	fl.StringVar(&opts.From, "from", "", "install from this bundle (fledge plugins bundle --out), contacting nothing")
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON result")
	fl.BoolVar(&opts.Policy, "policy", false, "install or update exactly the admin policy's [[required]] plugins, with the grants it pre-approves (no prompt)")
	return cmd
}

type syncResultJSON struct {
	Name   string     `json:"name"`
	Status string     `json:"status"`
	Commit string     `json:"commit"`
	URL    string     `json:"url"`
	Error  *jsonError `json:"error"`
}

type syncDoc struct {
	SchemaVersion int              `json:"schema_version"`
	Action        string           `json:"action"`
	Results       []syncResultJSON `json:"results"`
	Summary       map[string]int   `json:"summary"`
}

func syncRun(ctx context.Context, f *Factory, opts *syncOptions) error {
	in, _, err := newInstaller(ctx, f, opts.consentFlags, true)
	if err != nil {
		return err
	}
	if err := opts.provenance.apply(in); err != nil {
		return err
	}
	if f.IO.ShowProgress() && !opts.JSON {
		in.Git.Progress = newFetchProgress(newRunUI(f.IO, f.Prompter))
	}
	want, err := lockfile.LoadFile(opts.File)
	if errors.Is(err, fs.ErrNotExist) {
		return usageErrorf("--file %s: no such file: name the plugins.toml to make this machine match", opts.File)
	}
	if err != nil {
		return err
	}
	s := &install.Syncer{Installer: in, Prune: opts.Prune}
	if opts.From != "" {
		if s.From, err = oci.NewFromFS(ctx, os.DirFS(opts.From)); err != nil {
			return usageErrorf("--from %s: not a bundle (an OCI image layout written by fledge plugins bundle): %v", opts.From, err)
		}
	}
	results, err := s.Sync(ctx, want)
	if err != nil {
		return err
	}
	doc := syncDoc{SchemaVersion: SchemaVersion, Action: "sync", Results: []syncResultJSON{},
		Summary: map[string]int{"total": len(results), install.SyncInSync: 0, install.SyncInstalled: 0,
			install.SyncReplaced: 0, install.SyncRemoved: 0, install.SyncFailed: 0}}
	var failures []error
	for _, r := range results {
		j := syncResultJSON{Name: r.Name, Status: r.Status, Commit: r.Commit, URL: termsafe.Text(r.URL)}
		if r.Err != nil {
			failures = append(failures, r.Err)
			j.Error = toJSONError(withApprovalHint(r.Err, func(ae *install.ApprovalError) string {
				args := []string{"plugins", "sync", "--file", opts.File}
				if opts.Prune {
					args = append(args, "--prune")
				}
				if opts.Yes { // the other plugins' approval stays as given
					args = append(args, "--yes")
				}
				return retryWithGrants(ae, args...)
			}))
		}
		doc.Summary[r.Status]++
		doc.Results = append(doc.Results, j)
	}
	if opts.JSON {
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
	} else {
		st := f.IO.OutStyle()
		for _, r := range doc.Results {
			mark := map[string]string{install.SyncInSync: st.OK("✓"), install.SyncInstalled: st.OK("+"), install.SyncReplaced: st.Info("↻"),
				install.SyncRemoved: st.Dim("-"), install.SyncFailed: st.Fail("✗")}[r.Status]
			fmt.Fprintf(f.IO.Out, "%s %s %s", mark, termsafe.Escape(r.Name), r.Status)
			if r.Commit != "" {
				fmt.Fprintf(f.IO.Out, " (%s)", termsafe.Escape(r.Commit[:min(12, len(r.Commit))]))
			}
			if r.URL != "" {
				fmt.Fprintf(f.IO.Out, " from %s", termsafe.Line(r.URL))
			}
			fmt.Fprintln(f.IO.Out)
			if r.Error != nil {
				fmt.Fprintf(f.IO.Out, "  %s\n", r.Error.Message)
				if r.Error.Hint != "" {
					fmt.Fprintf(f.IO.Out, "  %s %s\n", st.Info("hint:"), r.Error.Hint)
				}
			}
		}
	}
	if len(failures) > 0 {
		return itemsFailed(failures)
	}
	return nil
}
