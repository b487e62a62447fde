package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/scaffold"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type createOptions struct {
	Name string
	Dir  string
	Lang string
}

func newCreateCmd(f *Factory) *cobra.Command {
	opts := &createOptions{}
	cmd := &cobra.Command{
		Use:   "create <name>",
		Short: "Create a new plugin directory with a working fledge-v1 example",
		Args:  exactArgs(1, "the plugin's command name"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = args[0]
			return createRun(f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "directory to create (default ./fledge-plugin-<name>)")
	cmd.Flags().StringVar(&opts.Lang, "lang", scaffold.LangShell, "language of the example: sh, go or wasm")
	return cmd
}

func createRun(f *Factory, opts *createOptions) error {
	dir := opts.Dir
	if dir == "" {
		dir = "fledge-plugin-" + strings.TrimPrefix(opts.Name, "fledge-plugin-")
	}
	if opts.Lang != scaffold.LangShell && opts.Lang != scaffold.LangGo && opts.Lang != scaffold.LangWasm {
		return usageErrorf("--lang must be sh, go or wasm, not %q", opts.Lang)
	}
	files, err := scaffold.Create(scaffold.Options{Name: opts.Name, Dir: dir, Lang: opts.Lang})
	if errors.Is(err, scaffold.ErrInvalidName) {
		return &usageError{err: err}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.Out, "✓ Created %s\n", termsafe.Line(dir))
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(f.IO.Out, "  %s\n", termsafe.Line(rel))
	}
	installArg := filepath.Clean(dir)
	if !filepath.IsAbs(installArg) && !strings.HasPrefix(installArg, ".") {
		installArg = "./" + installArg // a bare name would be read as a registry name
	}
	fmt.Fprintf(f.IO.Out, "Next: fledge plugins validate %s && fledge plugins install %s\n", termsafe.Line(dir), termsafe.Line(installArg))
	return nil
}
