package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type removeOptions struct {
	Names []string
	JSON  bool
}

func newRemoveCmd(f *Factory) *cobra.Command {
	opts := &removeOptions{}
	cmd := &cobra.Command{
		Use:     "remove <name>...",
		Aliases: []string{"uninstall", "rm"},
		Short:   "Remove installed plugins",
		Long: `Remove installed plugins, one or several (as install takes several).

With one name, --json prints {"removed": {...}}. With several, it prints
{"scope": "multiple", "removals": [...], "failed": [...]}, and fledge
exits 1 if any failed.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("%s takes the names of the plugins to remove", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			return removeRun(c, f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON result")
	cmd.ValidArgsFunction = completePluginNames(f, true)
	return cmd
}

type removedJSON struct {
	Name     string   `json:"name"`
	Source   string   `json:"source"`
	Version  string   `json:"version"`
	Commands []string `json:"commands"`
}

type removeDoc struct {
	SchemaVersion int         `json:"schema_version"`
	Action        string      `json:"action"`
	Removed       removedJSON `json:"removed"`
}

// removeManyDoc is remove --json with several names.
type removeManyDoc struct {
	SchemaVersion int             `json:"schema_version"`
	Action        string          `json:"action"`
	Scope         string          `json:"scope"`
	Removals      []removedJSON   `json:"removals"`
	Failed        []removeFailure `json:"failed"`
}

type removeFailure struct {
	Name  string    `json:"name"`
	Error jsonError `json:"error"`
}

func removeRun(c *cobra.Command, f *Factory, opts *removeOptions) error {
	store, paths, err := f.Lockfile()
	if err != nil {
		return err
	}
	// A policy that cannot be read never stops a removal (removing only
	// narrows); it stops the plugin's post_remove hook, which runs code.
	set, polErr := loadSettings(f, paths)
	r := &install.Remover{Paths: paths, Store: store, Log: f.IO.ErrOut, Unconfined: unconfinedBy(f), Settings: noteTrust(f.IO.ErrOut, set),
		PolicyErr: polErr, Journal: grantLog(f, paths)}
	if len(opts.Names) == 1 {
		p, err := r.Remove(c.Context(), opts.Names[0])
		if err != nil {
			return err
		}
		if opts.JSON {
			return writeJSON(f.IO.Out, removeDoc{SchemaVersion: SchemaVersion, Action: "remove", Removed: toRemovedJSON(p)})
		}
		fmt.Fprintf(f.IO.Out, "%s Removed %s %s\n", f.IO.OutStyle().OK("✓"), termsafe.Escape(p.Name), termsafe.Escape(p.Version))
		return nil
	}
	doc := removeManyDoc{SchemaVersion: SchemaVersion, Action: "remove", Scope: "multiple", Removals: []removedJSON{}, Failed: []removeFailure{}}
	var failures []error
	for _, name := range opts.Names {
		p, err := r.Remove(c.Context(), name)
		if err != nil {
			failures = append(failures, err)
			je := *toJSONError(err)
			doc.Failed = append(doc.Failed, removeFailure{Name: name, Error: je})
			est := f.IO.ErrStyle()
			fmt.Fprintf(f.IO.ErrOut, "%s %s: %s\n", est.Fail("✗"), termsafe.Escape(name), je.Message)
			if je.Hint != "" {
				fmt.Fprintf(f.IO.ErrOut, "  %s %s\n", est.Info("hint:"), je.Hint)
			}
			if c.Context().Err() != nil {
				break
			}
			continue
		}
		doc.Removals = append(doc.Removals, toRemovedJSON(p))
		if !opts.JSON {
			fmt.Fprintf(f.IO.Out, "%s Removed %s %s\n", f.IO.OutStyle().OK("✓"), termsafe.Escape(p.Name), termsafe.Escape(p.Version))
		}
	}
	if opts.JSON {
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
	}
	if len(failures) > 0 {
		return itemsFailed(failures)
	}
	return nil
}

func toRemovedJSON(p *lockfile.Plugin) removedJSON {
	cmds := p.Commands
	if cmds == nil {
		cmds = []string{}
	}
	return removedJSON{Name: p.Name, Source: p.Source, Version: p.Version, Commands: cmds}
}
