package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type infoOptions struct {
	Name string
	JSON bool
}

func newInfoCmd(f *Factory) *cobra.Command {
	opts := &infoOptions{}
	cmd := &cobra.Command{
		Use:   "info <name>",
		Short: "Show one installed plugin: its commands and their arguments, grants, hooks and origin",
		Args:  exactArgs(1, "the plugin's name"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = args[0]
			return infoRun(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	cmd.ValidArgsFunction = completePluginNames(f, false)
	return cmd
}

// hookJSON is one hook an installed plugin declares (or its build
// command), and whether its exact command is approved.
type hookJSON struct {
	Name     string `json:"name"`
	Command  string `json:"command"`
	Auto     bool   `json:"auto"`
	Approved bool   `json:"approved"`
}

// infoJSON is list's entry for one plugin, with what its installed
// plugin.toml requests beside what is granted.
type infoJSON struct {
	pluginJSON
	Requested capsJSON `json:"requested"`
	// Denied lists what it requests and is not granted (grant names).
	Denied []string `json:"denied"`
	// HookDetails lists every hook its installed plugin.toml declares,
	// and the build command, approved or not.
	HookDetails []hookJSON `json:"hook_details"`
	// ManifestStatus is "ok", "changed" (not the plugin.toml approved) or
	// "missing" (gone or unreadable): then requested and hook_details
	// hold only what was recorded.
	ManifestStatus string `json:"manifest_status"`
}

type infoDoc struct {
	SchemaVersion int      `json:"schema_version"`
	Plugin        infoJSON `json:"plugin"`
}

func infoRun(f *Factory, opts *infoOptions) error {
	file, _, paths, err := loadState(f)
	if err != nil {
		return err
	}
	p, err := file.Resolve(opts.Name)
	if err != nil {
		return err
	}
	set, _, err := describeSettings(f, paths)
	if err != nil {
		return err
	}
	g := set.Grants(p)
	info := infoJSON{pluginJSON: toPluginJSON(p, g, unconfinedFor(f, p)), Requested: toCapsJSON(p.Requested), Denied: []string{},
		HookDetails: []hookJSON{}, ManifestStatus: "ok"}
	r, _, err := install.InstalledRequest(paths, p, g.Tier)
	var me *install.InstalledManifestError
	switch {
	case errors.As(err, &me) && me.Changed:
		info.ManifestStatus = "changed"
	case err != nil:
		info.ManifestStatus = "missing"
	}
	if err != nil {
		// What was recorded at approval is all that can be trusted.
		r = install.Request{Plugin: p.Name, Capabilities: p.Requested}
		for _, name := range slices.Sorted(maps.Keys(p.Hooks)) {
			r.Hooks = append(r.Hooks, install.HookItem{Name: name, Command: p.Hooks[name]})
		}
	}
	info.Requested = toCapsJSON(r.Capabilities)
	granted := install.Grants{Capabilities: p.Capabilities, Hooks: p.Hooks}
	for _, it := range r.Items() {
		if !granted.Has(it) {
			info.Denied = append(info.Denied, it)
		}
	}
	for _, h := range r.Hooks {
		approved, ok := p.Hooks[h.Name]
		info.HookDetails = append(info.HookDetails, hookJSON{Name: h.Name, Command: h.Command, Auto: h.Auto, Approved: ok && approved == h.Command})
	}
	if info.Confinement != nil {
		// The scope of the plugin.toml read above, approved or recorded.
		info.Confinement = confinementOf(r.Capabilities.Filesystem, g, unconfinedFor(f, p))
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, infoDoc{SchemaVersion: SchemaVersion, Plugin: info})
	}
	printInfo(f.IO.Out, p, info)
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", errorText(err.Error()))
		if h := errorHint(err); h != "" {
			fmt.Fprintf(f.IO.ErrOut, "hint: %s\n", errorText(h))
		}
	}
	return nil
}

func printInfo(out io.Writer, p *lockfile.Plugin, info infoJSON) {
	fmt.Fprintf(out, "%s %s [%s]\n", termsafe.Escape(info.Name), termsafe.Escape(info.Version), info.TrustTier)
	if info.Description != "" {
		fmt.Fprintf(out, "  %s\n", termsafe.Escape(info.Description))
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "  %s\t%s\n", k+":", v) }
	src := info.Source
	if info.PinnedRef != nil {
		src += "@" + *info.PinnedRef
	}
	row("source", termsafe.Escape(src)+" ("+info.Kind+")")
	if info.URL != "" && info.URL != info.Source {
		row("url", termsafe.Escape(info.URL))
	}
	if info.Commit != "" {
		row("commit", termsafe.Escape(info.Commit))
	}
	if info.Origin != "" {
		row("origin", termsafe.Escape(info.Origin))
	}
	if info.Mirror != "" {
		row("fetched from", termsafe.Escape(info.Mirror)+" (a mirror)")
	}
	if info.OCIDigest != "" {
		row("oci digest", termsafe.Escape(info.OCIDigest))
	}
	row("installed", termsafe.Escape(info.Installed))
	if r := info.Revoked; r != nil {
		row("revoked", "by "+termsafe.Line(r.Issuer)+" on "+termsafe.Line(r.Date)+": "+termsafe.Line(r.Reason)+" ("+termsafe.Escape(r.List)+")")
	}
	if info.Disabled {
		row("disabled", "by "+termsafe.Line(info.DisabledBy)+": nothing of it runs until "+commandLine("plugins", "enable", info.Name))
	}
	row("provenance", provenanceText(p.Provenance))
	proto := info.Protocol
	if proto == "" {
		proto = "none (runs with the terminal, no host operations)"
	}
	row("protocol", termsafe.Escape(proto)+", "+info.Runtime)
	if info.Confinement != nil {
		row("confinement", info.Confinement.text())
	}
	row("granted", capsText(info.Granted)+hooksNote(p))
	row("requested", capsText(info.Requested))
	if len(info.Denied) > 0 {
		row("not granted", strings.Join(info.Denied, ", ")+"  (to grant: "+commandLine(append([]string{"plugins", "grant", info.Name}, info.Denied...)...)+")")
	}
	if info.ManifestStatus != "ok" {
		row("plugin.toml", map[string]string{"changed": "not the one approved", "missing": "missing or unreadable"}[info.ManifestStatus])
	}
	_ = tw.Flush()

	if len(info.HookDetails) > 0 {
		fmt.Fprintln(out, "\nHooks:")
		tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		for _, h := range info.HookDetails {
			state := "approved"
			if !h.Approved {
				state = "not approved"
			}
			if h.Auto {
				state += ", detected build command"
			}
			fmt.Fprintf(tw, "  %s\t%s\t(%s)\n", h.Name, termsafe.Escape(h.Command), state)
		}
		_ = tw.Flush()
	}

	fmt.Fprintln(out, "\nCommands:")
	for _, c := range info.CommandDetails {
		usage := termsafe.Escape(c.Name)
		for _, a := range c.Args {
			if a.Required {
				usage += " <" + termsafe.Escape(a.Name) + ">"
			} else {
				usage += " [" + termsafe.Escape(a.Name) + "]"
			}
		}
		if c.Dangerous {
			usage += "  (dangerous)"
		}
		fmt.Fprintf(out, "  fledge %s\n", usage)
		if c.Description != "" {
			fmt.Fprintf(out, "      %s\n", termsafe.Escape(c.Description))
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		for _, a := range c.Args {
			req := "optional"
			if a.Required {
				req = "required"
			}
			typ := a.Type
			if typ == "" {
				typ = "string"
			}
			fmt.Fprintf(tw, "      %s\t%s\t%s\t%s\n", termsafe.Escape(a.Name), termsafe.Escape(typ), req, termsafe.Escape(a.Description))
		}
		_ = tw.Flush()
	}
}

// hooksNote says whether hooks are approved, for the granted line.
func hooksNote(p *lockfile.Plugin) string {
	if len(p.Hooks) == 0 {
		return ""
	}
	return "; hooks approved"
}

// provenanceText is who signed an installed revision, for a terminal:
// the level, the signer and principal, and the file that vouched.
func provenanceText(p *lockfile.Provenance) string {
	return termsafe.Escape(p.Describe())
}
