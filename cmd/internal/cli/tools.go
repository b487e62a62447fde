//go:build !fledge_nomcp

package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/catalog"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type toolsOptions struct {
	JSON bool
}

func newToolsCmd(f *Factory) *cobra.Command {
	opts := &toolsOptions{}
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List every installed command as a typed tool (what fledge mcp serves)",
		Long: `List every installed plugin command as a tool an agent can call: its name, its
arguments as a JSON Schema (from the command's typed args, in argv order),
whether it is dangerous, and its plugin's grants, trust tier and runtime.
'fledge mcp' serves exactly these tools.

A command two plugins provide is named <plugin>.<command> for each of them
(see the collisions); every other tool has its command's own name.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return toolsRun(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	return cmd
}

// toolJSON is one tool of `plugins tools --json`.
type toolJSON struct {
	Name        string             `json:"name"`
	Command     string             `json:"command"`
	Plugin      string             `json:"plugin"`
	Description string             `json:"description"`
	InputSchema *jsonschema.Schema `json:"input_schema"`
	// FreeForm is true when the command declares no args and takes a
	// list of strings.
	FreeForm  bool     `json:"free_form"`
	Dangerous bool     `json:"dangerous"`
	ReadOnly  bool     `json:"read_only"`
	TrustTier string   `json:"trust_tier"`
	Runtime   string   `json:"runtime"`
	Protocol  string   `json:"protocol"`
	Grants    capsJSON `json:"grants"`
	Hooks     []string `json:"hooks"`
	// Output is "json" when the command prints one JSON value (agents get
	// it as structured content), else "text"; OutputSchema its declared
	// schema, or null.
	Output       string             `json:"output"`
	OutputSchema *jsonschema.Schema `json:"output_schema"`
	// Commit is the recorded commit ("" for a local source).
	Commit string `json:"commit"`
	// Hints are the MCP annotations fledge mcp gives the tool.
	Hints hintsJSON `json:"hints"`
	// Confinement is how the kernel confines a native plugin's own code
	// here, as audit shows it (absent for wasm).
	Confinement *confinementJSON `json:"confinement,omitempty"`
}

// hintsJSON is catalog.Hints.
type hintsJSON struct {
	ReadOnly bool `json:"read_only"`
	// Enforced says read_only comes from enforcement (fledge's wasm
	// sandbox), not only from the grants.
	Enforced    bool `json:"enforced"`
	Destructive bool `json:"destructive"`
	OpenWorld   bool `json:"open_world"`
}

type collisionJSON struct {
	Command string   `json:"command"`
	Plugins []string `json:"plugins"`
	Tools   []string `json:"tools"`
}

type skippedJSON struct {
	Plugin  string `json:"plugin"`
	Command string `json:"command"`
	Reason  string `json:"reason"`
}

type toolsDoc struct {
	SchemaVersion int `json:"schema_version"`
	// Digest is catalog.Digest of the tools: what fledge mcp's initialize
	// result carries as _meta "fledge/catalog_digest" (without --tools).
	Digest     string          `json:"digest"`
	Tools      []toolJSON      `json:"tools"`
	Collisions []collisionJSON `json:"collisions"`
	Skipped    []skippedJSON   `json:"skipped"`
	// Edited names the live-linked plugins whose plugin.toml changed
	// since they were linked (their tools are what was approved).
	Edited []editedJSON `json:"edited"`
}

type editedJSON struct {
	Plugin string `json:"plugin"`
	Source string `json:"source"`
	Hint   string `json:"hint"`
}

// editedHint is the command that offers a live link's edit: installing
// its directory again, which shows what it requests and asks again.
func editedHint(e catalog.Edited) string {
	return commandLine("plugins", "install", "--force", e.Source)
}

func toolsRun(f *Factory, opts *toolsOptions) error {
	_, paths, err := f.Lockfile()
	if err != nil {
		return err
	}
	set, perr, err := describeSettings(f, paths)
	if err != nil {
		return err
	}
	if perr != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", errorText(perr.Error()))
	}
	c, err := catalog.LoadSeeded(paths, seedDirs(f), set)
	if err != nil {
		return err
	}
	if off := unconfinedBy(f); off != "" {
		c.Unconfine(off)
	}
	printCatalogNotes(f.IO.ErrOut, c)
	if opts.JSON {
		return writeJSON(f.IO.Out, toToolsDoc(c))
	}
	if len(c.Tools) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No plugin commands installed. Install a plugin with: fledge plugins install <source>")
		return nil
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tPLUGIN\tARGUMENTS\tFLAGS\tDESCRIPTION")
	for _, t := range c.Tools {
		var flags []string
		if t.Dangerous {
			flags = append(flags, "dangerous")
		}
		if t.ReadOnly {
			flags = append(flags, "read-only")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.Name, termsafe.Escape(t.Plugin), toolArgs(t),
			strings.Join(flags, ","), oneLine(t.Description, 60))
	}
	return tw.Flush()
}

// printCatalogNotes says, on stderr, which commands collide and which are
// not tools: the names an agent sees then differ from the commands.
func printCatalogNotes(w io.Writer, c *catalog.Catalog) {
	for _, col := range c.Collisions {
		var named []string
		for i, p := range col.Plugins {
			named = append(named, fmt.Sprintf("%s (%s)", col.Tools[i], termsafe.Escape(p)))
		}
		fmt.Fprintf(w, "note: %d plugins provide command %s; their tools are %s\n", len(col.Plugins), col.Command, strings.Join(named, ", "))
	}
	for _, s := range c.Skipped {
		fmt.Fprintf(w, "warning: %s: command %s is not offered as a tool: %s\n", termsafe.Escape(s.Plugin), termsafe.Escape(s.Command), termsafe.EscapeText(s.Reason))
	}
	for _, e := range c.Edited {
		fmt.Fprintf(w, "note: %s: plugin.toml changed since it was linked, so its tools are what was approved; to offer the edit: %s\n", termsafe.Escape(e.Plugin), termsafe.Escape(editedHint(e)))
	}
}

// toolArgs shows a tool's arguments in argv order: name, ? when optional,
// and the type unless it is a string.
func toolArgs(t *catalog.Tool) string {
	if t.FreeForm {
		return "[args...]"
	}
	var parts []string
	for _, a := range t.Args {
		s := termsafe.Escape(a.Name)
		if !a.Required {
			s += "?"
		}
		if typ := t.InputSchema.Properties[a.Name].Type; typ != "string" {
			s += ":" + typ
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// oneLine is the first line of s, cut to n columns.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(termsafe.Line(s), "\n")
	return termsafe.Truncate(s, n)
}

func toToolsDoc(c *catalog.Catalog) toolsDoc {
	doc := toolsDoc{SchemaVersion: SchemaVersion, Digest: catalog.Digest(c.Tools), Tools: []toolJSON{}, Collisions: []collisionJSON{}, Skipped: []skippedJSON{}, Edited: []editedJSON{}}
	for _, t := range c.Tools {
		h := t.Hints()
		output := "text"
		if t.JSONOutput {
			output = "json"
		}
		var conf *confinementJSON
		if t.Runtime != manifest.RuntimeWasm {
			conf = toConfinementJSON(t.Confinement)
		}
		doc.Tools = append(doc.Tools, toolJSON{
			Confinement: conf,
			Name:        t.Name, Command: t.Command, Plugin: t.Plugin, Description: t.Description,
			InputSchema: t.InputSchema, FreeForm: t.FreeForm, Dangerous: t.Dangerous, ReadOnly: t.ReadOnly,
			TrustTier: string(t.Tier), Runtime: t.Runtime, Protocol: t.Protocol,
			Grants: toCapsJSON(t.Grants), Hooks: t.Hooks, Commit: t.Commit,
			Output: output, OutputSchema: t.OutputSchema,
			Hints: hintsJSON{ReadOnly: h.ReadOnly, Enforced: h.Enforced, Destructive: h.Destructive, OpenWorld: h.OpenWorld},
		})
	}
	for _, col := range c.Collisions {
		doc.Collisions = append(doc.Collisions, collisionJSON{Command: col.Command, Plugins: col.Plugins, Tools: col.Tools})
	}
	for _, s := range c.Skipped {
		doc.Skipped = append(doc.Skipped, skippedJSON{Plugin: s.Plugin, Command: s.Command, Reason: s.Reason})
	}
	for _, e := range c.Edited {
		doc.Edited = append(doc.Edited, editedJSON{Plugin: e.Plugin, Source: e.Source, Hint: editedHint(e)})
	}
	return doc
}
