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

type validateDoc struct {
	SchemaVersion int               `json:"schema_version"`
	Path          string            `json:"path"`
	PluginName    string            `json:"plugin_name"`
	Valid         bool              `json:"valid"`
	Errors        manifest.Problems `json:"errors"`
	Warnings      manifest.Problems `json:"warnings"`
}

func validateRun(f *Factory, opts *validateOptions) error {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrorf("%s is not a directory: point validate at a plugin's directory", opts.Dir)
	}
	m, err := manifest.Load(dir)
	if err != nil {
		return withCode(CodeInvalidManifest, err, "")
	}
	problems := m.Validate()
	// Binaries: a missing one is expected when a build command will make it.
	build, _ := install.BuildCommand(m, dir)
	for _, p := range m.CheckBinaries(dir) {
		if build != "" && strings.HasSuffix(p.Message, "does not exist") {
			continue
		}
		problems = append(problems, p)
	}
	problems = append(problems, install.CheckWasm(context.Background(), m, dir, "")...)
	doc := validateDoc{SchemaVersion: SchemaVersion, Path: dir, PluginName: m.Plugin.Name,
		Errors: problems.Errors(), Warnings: problems.Warnings()}
	if doc.Errors == nil {
		doc.Errors = manifest.Problems{}
	}
	if doc.Warnings == nil {
		doc.Warnings = manifest.Problems{}
	}
	doc.Valid = len(doc.Errors) == 0 && !(opts.Strict && len(doc.Warnings) > 0)

	if opts.JSON {
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
	} else {
		w := f.IO.Out
		name := termsafe.Line(m.Plugin.Name)
		if doc.Valid {
			fmt.Fprintf(w, "✓ %s is valid\n", name)
		} else {
			fmt.Fprintf(w, "✗ %s is not valid\n", name)
		}
		for _, p := range doc.Errors {
			fmt.Fprintf(w, "  error: %s\n", termsafe.Line(p.String()))
		}
		for _, p := range doc.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", termsafe.Line(p.String()))
		}
	}
	if !doc.Valid {
		return &exitCodeError{code: ExitFailure}
	}
	return nil
}
