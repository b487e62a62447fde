package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/scaffold"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type createOptions struct {
	Name        string
	Dir         string
	Output      string
	Lang        string
	Wasm        bool
	Description string
	Yes         bool
	JSON        bool
}

func newCreateCmd(f *Factory) *cobra.Command {
	opts := &createOptions{}
	cmd := &cobra.Command{
		Use:   "create <name>",
		Short: "Create a new plugin directory with a working fledge-v1 example",
		Long: `Create a plugin directory, fledge-plugin-<name>, in the current directory (or in
--output's), or exactly at --dir. Its plugin.toml, example command, README and
.gitignore validate and install as they are. On a terminal, fledge asks for a
description unless --description or --yes gives the answer.`,
		Args: exactArgs(1, "the plugin's command name"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = args[0]
			if opts.Dir != "" && opts.Output != "" {
				return usageErrorf("--dir names the plugin's directory and --output the directory to create it in: give one")
			}
			if opts.Wasm {
				if c.Flags().Changed("lang") && opts.Lang != scaffold.LangWasm {
					return usageErrorf("--wasm and --lang %s ask for different languages", opts.Lang)
				}
				opts.Lang = scaffold.LangWasm
			}
			if opts.Description != "" {
				if err := scaffold.CheckDescription(opts.Description); err != nil {
					return &usageError{err: err}
				}
			}
			return createRun(c.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Dir, "dir", "", "directory to create (default ./fledge-plugin-<name>)")
	fl.StringVarP(&opts.Output, "output", "o", "", "parent directory to create fledge-plugin-<name> in (default .)")
	fl.StringVar(&opts.Lang, "lang", scaffold.LangShell, "language of the example: sh, go or wasm")
	fl.BoolVar(&opts.Wasm, "wasm", false, "a wasm plugin (the same as --lang wasm)")
	fl.StringVarP(&opts.Description, "description", "d", "", "the plugin's description (no prompt)")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "ask nothing: take the default description")
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON document")
	_ = cmd.RegisterFlagCompletionFunc("lang", completeWords(scaffold.LangShell, scaffold.LangGo))
	return cmd
}

// createDoc is the --json document: the Rust fledge's {action: "create",
// path, name, description, files_created} (src/plugin/create.rs) and
// fledge's plugin_name, lang and runtime.
type createDoc struct {
	SchemaVersion int    `json:"schema_version"`
	Action        string `json:"action"`
	Path          string `json:"path"`
	Name          string `json:"name"`
	Description   string `json:"description"`
	// FilesCreated are relative to Path, with forward slashes.
	FilesCreated []string `json:"files_created"`
	PluginName   string   `json:"plugin_name"`
	Lang         string   `json:"lang"`
	Runtime      string   `json:"runtime"`
}

func createRun(ctx context.Context, f *Factory, opts *createOptions) error {
	plugin := scaffold.PluginName(opts.Name)
	dir := opts.Dir
	if dir == "" {
		dir = filepath.Join(opts.Output, plugin)
	}
	desc := opts.Description
	if desc == "" && !opts.Yes && !opts.JSON && f.IO.CanPrompt() {
		orDefault := func(d string) string {
			if d == "" {
				return scaffold.DefaultDescription
			}
			return d
		}
		d, err := f.Prompter.Input(ctx, Question{Title: "Description", Description: "what the plugin does, in one line"}, scaffold.DefaultDescription,
			func(d string) error { return scaffold.CheckDescription(orDefault(d)) })
		if err != nil {
			return err
		}
		desc = strings.TrimSpace(orDefault(d))
	}
	files, err := scaffold.Create(scaffold.Options{Name: opts.Name, Dir: dir, Lang: opts.Lang, Description: desc})
	switch {
	case errors.Is(err, scaffold.ErrInvalidName), errors.Is(err, scaffold.ErrInvalidDescription), errors.Is(err, scaffold.ErrUnknownLang):
		return &usageError{err: err}
	case err != nil:
		return err
	}
	if desc == "" {
		desc = scaffold.DefaultDescription
	}
	doc := createDoc{SchemaVersion: SchemaVersion, Action: "create", Path: dir, Name: opts.Name, Description: desc,
		FilesCreated: make([]string, 0, len(files)), PluginName: plugin, Lang: opts.Lang, Runtime: manifest.RuntimeNative}
	if opts.Lang == scaffold.LangWasm {
		doc.Runtime = manifest.RuntimeWasm
	}
	for _, p := range files {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			rel = p
		}
		doc.FilesCreated = append(doc.FilesCreated, filepath.ToSlash(rel))
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, doc)
	}
	fmt.Fprintf(f.IO.Out, "%s Created %s\n", f.IO.OutStyle().OK("✓"), termsafe.Escape(dir))
	for _, rel := range doc.FilesCreated {
		fmt.Fprintf(f.IO.Out, "  %s\n", termsafe.Escape(rel))
	}
	installArg := filepath.Clean(dir)
	if !filepath.IsAbs(installArg) && !strings.HasPrefix(installArg, ".") {
		installArg = "./" + installArg // a bare name would be read as a registry name
	}
	fmt.Fprintf(f.IO.Out, "Next: fledge plugins validate %s && fledge plugins install %s\n", termsafe.Escape(dir), termsafe.Escape(installArg))
	return nil
}
