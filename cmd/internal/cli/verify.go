package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type verifyOptions struct {
	Names []string
	JSON  bool
}

func newVerifyCmd(f *Factory) *cobra.Command {
	opts := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [<name>...]",
		Short: "Check installed plugins byte for byte against what was installed",
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			return verifyRun(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	cmd.ValidArgsFunction = completePluginNames(f, true)
	return cmd
}

type verifyResultJSON struct {
	Name            string     `json:"name"`
	Status          string     `json:"status"`
	RecordedHash    string     `json:"recorded_hash"`
	CurrentHash     string     `json:"current_hash"`
	ManifestChanged bool       `json:"manifest_changed"`
	Modified        []string   `json:"modified"`
	Added           []string   `json:"added"`
	Missing         []string   `json:"missing"`
	Error           *jsonError `json:"error"`
}

type verifyDoc struct {
	SchemaVersion int                `json:"schema_version"`
	Results       []verifyResultJSON `json:"results"`
	Summary       struct {
		Total  int `json:"total"`
		OK     int `json:"ok"`
		Failed int `json:"failed"`
	} `json:"summary"`
}

func verifyRun(f *Factory, opts *verifyOptions) error {
	file, _, paths, err := loadState(f)
	if err != nil {
		return err
	}
	var targets []*lockfile.Plugin
	if len(opts.Names) == 0 {
		targets = sortedPlugins(file)
	}
	doc := verifyDoc{SchemaVersion: SchemaVersion, Results: []verifyResultJSON{}}
	for _, n := range opts.Names {
		p, err := file.Resolve(n)
		if err != nil {
			doc.Results = append(doc.Results, verifyResultJSON{Name: n, Status: install.VerifyError,
				Modified: []string{}, Added: []string{}, Missing: []string{},
				Error: toJSONError(err)})
			doc.Summary.Failed++
			continue
		}
		targets = append(targets, p)
	}
	for _, p := range targets {
		r := install.Verify(paths, p)
		j := verifyResultJSON{Name: r.Name, Status: r.Status, RecordedHash: r.Recorded, CurrentHash: r.Current,
			ManifestChanged: r.ManifestChanged, Modified: r.Diff.Modified, Added: r.Diff.Added, Missing: r.Diff.Missing}
		if r.Err != nil {
			j.Error = toJSONError(r.Err)
		}
		doc.Results = append(doc.Results, j)
		switch {
		case r.Failed():
			doc.Summary.Failed++
		case r.Status == install.VerifyOK:
			doc.Summary.OK++
		}
	}
	doc.Summary.Total = len(doc.Results)
	if opts.JSON {
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
	} else {
		printVerify(f, doc)
	}
	if doc.Summary.Failed > 0 {
		return &exitCodeError{code: ExitFailure}
	}
	return nil
}

func printVerify(f *Factory, doc verifyDoc) {
	w := f.IO.Out
	st := f.IO.OutStyle()
	if len(doc.Results) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No plugins installed.")
	}
	for _, r := range doc.Results {
		name := termsafe.Escape(r.Name)
		switch r.Status {
		case install.VerifyOK:
			fmt.Fprintf(w, "%s %s matches what was installed\n", st.OK("✓"), name)
		case install.VerifyLinked:
			fmt.Fprintf(w, "%s %s is live-linked: changes are expected (grants never widen)\n", st.Dim("-"), name)
		case install.VerifyUnrecorded:
			fmt.Fprintf(w, "%s %s has no recorded hash (installed by another fledge): reinstall to record one\n", st.Warn("-"), name)
		default:
			fmt.Fprintf(w, "%s %s: %s\n", st.Fail("✗"), name, r.Status)
		}
		if r.ManifestChanged && r.Status != install.VerifyMissing {
			fmt.Fprintf(w, "  plugin.toml differs from the one approved\n")
		}
		for _, x := range []struct {
			label string
			paths []string
		}{{"modified", r.Modified}, {"added", r.Added}, {"missing", r.Missing}} {
			if len(x.paths) == 0 {
				continue
			}
			shown := x.paths[:min(20, len(x.paths))]
			for i := range shown {
				shown[i] = termsafe.Escape(shown[i])
			}
			more := ""
			if len(x.paths) > len(shown) {
				more = fmt.Sprintf(" (+%d more)", len(x.paths)-len(shown))
			}
			fmt.Fprintf(w, "  %s: %s%s\n", x.label, strings.Join(shown, ", "), more)
		}
		if r.Error != nil {
			fmt.Fprintf(w, "  %s\n", r.Error.Message)
		}
	}
}
