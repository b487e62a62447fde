package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/publish"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type validateOptions struct {
	Dir    string
	Strict bool
	JSON   bool
}

func newValidateCmd(f *Factory) *cobra.Command {
	opts := &validateOptions{Dir: "."}
	cmd := &cobra.Command{
		Use:   "validate [dir]",
		Short: "Check a plugin's plugin.toml (for plugin authors)",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("validate takes at most one directory")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			return validateRun(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "treat warnings (unknown keys, ...) as errors")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	return cmd
}

// validateDoc is the --json document: the Rust fledge's report
// (src/plugin/validate.rs, PluginValidationReport) with errors and
// warnings as text, and fledge's structured findings beside them.
type validateDoc struct {
	SchemaVersion int      `json:"schema_version"`
	Path          string   `json:"path"`
	PluginName    string   `json:"plugin_name"`
	Valid         bool     `json:"valid"`
	Errors        []string `json:"errors"`
	Warnings      []string `json:"warnings"`
	// ErrorDetails and WarningDetails are the same findings with their
	// field, message and fix apart.
	ErrorDetails   manifest.Problems `json:"error_details"`
	WarningDetails manifest.Problems `json:"warning_details"`
	// advisory counts the warnings --strict does not fail on.
	advisory int
}

// problemTexts is each finding as one line of text.
func problemTexts(ps manifest.Problems) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func validateRun(f *Factory, opts *validateOptions) error {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrorf("%s is not a directory: point validate at a plugin's directory", opts.Dir)
	}
	doc, _, err := checkPlugin(dir)
	if err != nil {
		return err
	}
	// Who signed a release is what installs record: say when the latest
	// one is signed by no one. It is advice, which --strict does not fail
	// on: every plugin published for the Rust fledge has unsigned tags and
	// runs validate --strict in its CI, and a check that breaks CI with no
	// way around it but signing gets deleted, not obeyed.
	if tag, signed, err := publish.LatestTag(dir); err == nil && tag != "" && !signed {
		doc.advisory++
		p := manifest.Problem{Severity: manifest.SeverityWarning, Field: "tag " + tag,
			Message: "the latest release tag is not signed, so installs record it as unsigned", Fix: publish.SigningHelp + ", then tag releases with git tag -s"}
		doc.WarningDetails = append(doc.WarningDetails, p)
		doc.Warnings = append(doc.Warnings, p.String())
	}
	return printValidation(f, opts, doc)
}

// checkPlugin validates the plugin in dir (an absolute path) as validate
// and publish do. The manifest is nil when plugin.toml does not parse
// (the report says why); the error is set when there is none to read.
func checkPlugin(dir string) (validateDoc, *manifest.Manifest, error) {
	data, err := manifest.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		return validateDoc{}, nil, withCode(CodeInvalidManifest, err, "")
	}
	m, err := manifest.Parse(data)
	if err != nil {
		// As Rust's: a plugin.toml that does not parse is reported, not
		// raised, so a script reads the reason from errors.
		p := manifest.Problem{Severity: manifest.SeverityError, Field: manifest.FileName,
			Message: strings.TrimPrefix(err.Error(), manifest.FileName+": ")}
		return validateDoc{SchemaVersion: SchemaVersion, Path: dir,
			Errors: []string{p.String()}, Warnings: []string{},
			ErrorDetails: manifest.Problems{p}, WarningDetails: manifest.Problems{}}, nil, nil
	}
	problems := m.Validate()
	// Binaries: a missing one is expected when a build command will make
	// it, so it is a warning (as in the Rust fledge: --strict fails on it),
	// not an error.
	build, _ := install.BuildCommand(m, dir)
	for _, p := range m.CheckBinaries(dir) {
		if build != "" && strings.HasSuffix(p.Message, "does not exist") {
			p.Severity = manifest.SeverityWarning
			p.Message += " yet (the build command may create it: " + termsafe.Escape(build) + ")"
			p.Fix = "build it first to check it, or ignore this before a build"
		}
		problems = append(problems, p)
	}
	problems = append(problems, install.CheckWasm(context.Background(), m, dir, "")...)
	doc := validateDoc{SchemaVersion: SchemaVersion, Path: dir, PluginName: m.Plugin.Name,
		ErrorDetails: problems.Errors(), WarningDetails: problems.Warnings()}
	if doc.ErrorDetails == nil {
		doc.ErrorDetails = manifest.Problems{}
	}
	if doc.WarningDetails == nil {
		doc.WarningDetails = manifest.Problems{}
	}
	doc.Errors, doc.Warnings = problemTexts(doc.ErrorDetails), problemTexts(doc.WarningDetails)
	doc.Valid = len(doc.Errors) == 0
	return doc, m, nil
}

// printValidation prints the report and fails when it is not valid (under
// --strict, also when it has warnings other than advice).
func printValidation(f *Factory, opts *validateOptions, doc validateDoc) error {
	doc.Valid = len(doc.Errors) == 0 && !(opts.Strict && len(doc.Warnings) > doc.advisory)
	if opts.JSON {
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
	} else {
		w := f.IO.Out
		st := f.IO.OutStyle()
		name := termsafe.Escape(doc.PluginName)
		if name == "" {
			name = termsafe.Escape(doc.Path)
		}
		if doc.Valid {
			fmt.Fprintf(w, "%s %s is valid\n", st.OK("✓"), name)
		} else {
			fmt.Fprintf(w, "%s %s is not valid\n", st.Fail("✗"), name)
		}
		for _, p := range doc.Errors {
			fmt.Fprintf(w, "  %s %s\n", st.Error("error:"), termsafe.EscapeText(p))
		}
		for _, p := range doc.Warnings {
			fmt.Fprintf(w, "  %s %s\n", st.Warn("warning:"), termsafe.EscapeText(p))
		}
	}
	if !doc.Valid {
		return &exitCodeError{code: ExitFailure}
	}
	return nil
}
