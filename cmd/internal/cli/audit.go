package cli

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
	"github.com/corvidlabs/fledge-go/treehash"
	"github.com/corvidlabs/fledge-go/wasmhost"
)

type auditOptions struct{ JSON bool }

func newAuditCmd(f *Factory) *cobra.Command {
	opts := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show what every installed plugin may do and where it came from",
		Args:  noArgs,
		RunE:  func(c *cobra.Command, args []string) error { return auditRun(f, opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	return cmd
}

type auditEntry struct {
	Name      string            `json:"name"`
	Version   string            `json:"version"`
	TrustTier string            `json:"trust_tier"`
	Source    string            `json:"source"`
	URL       string            `json:"url"`
	Kind      string            `json:"kind"`
	Commit    string            `json:"commit"`
	PinnedRef string            `json:"pinned_ref"`
	Granted   capsJSON          `json:"granted"`
	Requested capsJSON          `json:"requested"`
	Hooks     map[string]string `json:"approved_hooks"`
	Warnings  []string          `json:"warnings"`
	// Runtime and Sandboxed come from the installed manifest, never the
	// record; Sandbox says what a sandboxed plugin's own code may touch.
	Runtime   string `json:"runtime"`
	Sandboxed bool   `json:"sandboxed"`
	Sandbox   string `json:"sandbox,omitempty"`
}

type auditDoc struct {
	SchemaVersion int          `json:"schema_version"`
	Audit         []auditEntry `json:"audit"`
}

func auditRun(f *Factory, opts *auditOptions) error {
	file, cfg, err := loadState(f)
	if err != nil {
		return err
	}
	paths, err := f.Paths()
	if err != nil {
		return err
	}
	t := trustConfig(cfg)
	doc := auditDoc{SchemaVersion: SchemaVersion, Audit: []auditEntry{}}
	for _, p := range sortedPlugins(file) {
		doc.Audit = append(doc.Audit, auditPlugin(paths, p, t))
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, doc)
	}
	if len(doc.Audit) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No plugins installed.")
		return nil
	}
	for _, a := range doc.Audit {
		printAudit(f, a)
	}
	return nil
}

// auditPlugin compares a plugin's record with its installed manifest.
func auditPlugin(paths home.Paths, p *lockfile.Plugin, t registry.TrustConfig) auditEntry {
	tier := entryTier(p, t)
	a := auditEntry{
		Runtime: "native",
		Name:    p.Name, Version: p.Version, TrustTier: string(tier), Source: p.Source, URL: p.URL,
		Kind: kindOf(p), Commit: p.Commit, PinnedRef: p.PinnedRef,
		Granted: toCapsJSON(p.Capabilities), Requested: toCapsJSON(p.Requested),
		Hooks: map[string]string{}, Warnings: []string{},
	}
	for k, v := range p.Hooks {
		a.Hooks[k] = v
	}
	warn := func(format string, args ...any) { a.Warnings = append(a.Warnings, fmt.Sprintf(format, args...)) }

	if tier == registry.TierUnverified && p.Capabilities.Exec {
		warn("unverified source with exec granted")
	}
	dir := paths.PluginDir(p.Name)
	data, err := manifest.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		warn("installed manifest unreadable: %v", err)
		return a
	}
	if p.ManifestHash != "" && treehash.FileDigest(data) != p.ManifestHash {
		if p.Kind == lockfile.KindLocalLink {
			warn("plugin.toml changed since it was approved (live link: grants stay as approved)")
		} else {
			warn("plugin.toml no longer matches the one approved at install")
		}
	}
	m, err := manifest.Parse(data)
	if err != nil {
		warn("installed manifest invalid: %v", err)
		return a
	}
	if p.ManifestHash == "" {
		// A record without what was requested (e.g. from the Rust fledge):
		// show what the manifest asks for now.
		a.Requested = toCapsJSON(m.Capabilities)
	}
	if missing := m.Capabilities.Missing(p.Capabilities); len(missing) > 0 {
		warn("requested but not granted: %s", manifest.JoinCapabilities(missing))
	}
	var unapproved []string
	for name, cmd := range m.Hooks.Map() {
		if approved, ok := p.Hooks[name]; !ok || approved != cmd {
			unapproved = append(unapproved, name)
		}
	}
	sort.Strings(unapproved)
	if len(unapproved) > 0 {
		warn("hooks not approved (they never run): %s", strings.Join(unapproved, ", "))
	}
	a.Runtime, a.Sandboxed = m.RuntimeName(), m.IsWasm()
	if a.Sandboxed {
		a.Sandbox = wasmhost.Describe(p.Capabilities.Filesystem)
	}
	return a
}

func printAudit(f *Factory, a auditEntry) {
	w := f.IO.Out
	fmt.Fprintf(w, "%s %s [%s]\n", termsafe.Line(a.Name), termsafe.Line(a.Version), a.TrustTier)
	src := a.Source
	if a.PinnedRef != "" {
		src += "@" + a.PinnedRef
	}
	fmt.Fprintf(w, "  source:    %s (%s)\n", termsafe.Line(src), a.Kind)
	if a.Commit != "" {
		fmt.Fprintf(w, "  commit:    %s\n", termsafe.Line(a.Commit))
	}
	if a.Sandboxed {
		fmt.Fprintf(w, "  runtime:   wasm (sandboxed): its own code reaches %s\n", a.Sandbox)
	} else {
		fmt.Fprintf(w, "  runtime:   %s, unsandboxed: its code runs with your privileges\n", termsafe.Line(a.Runtime))
	}
	fmt.Fprintf(w, "  granted:   %s\n", capsText(a.Granted))
	fmt.Fprintf(w, "  requested: %s\n", capsText(a.Requested))
	names := make([]string, 0, len(a.Hooks))
	for h := range a.Hooks {
		names = append(names, h)
	}
	sort.Strings(names)
	for _, h := range names {
		fmt.Fprintf(w, "  hook %-14s %s\n", h+":", termsafe.Line(a.Hooks[h]))
	}
	for _, warning := range a.Warnings {
		fmt.Fprintf(w, "  ! %s\n", termsafe.Line(warning))
	}
}

func capsText(c capsJSON) string {
	var out []string
	for _, x := range []struct {
		n  string
		on bool
	}{{"exec", c.Exec}, {"store", c.Store}, {"metadata", c.Metadata}, {"network", c.Network}} {
		if x.on {
			out = append(out, x.n)
		}
	}
	if c.Filesystem != "none" && c.Filesystem != "" {
		out = append(out, "filesystem ("+termsafe.Line(c.Filesystem)+")")
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
