package catalog

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
	"github.com/corvidlabs/fledge-go/trust"
)

// Catalog is every installed command as a tool.
type Catalog struct {
	// Tools is sorted by Name; names are unique.
	Tools []*Tool
	// Collisions lists the commands more than one plugin provides, and
	// the names their tools got instead, sorted by command.
	Collisions []Collision
	// Skipped lists recorded commands that are not tools, and why.
	Skipped []Skipped
	// Edited names the live-linked plugins whose plugin.toml changed
	// since they were linked: their tools are still what was approved.
	Edited []Edited
	// Inputs are the files Load built it from (plugins.toml, the
	// settings' files: config.toml and the admin policy's, the installed
	// plugin.toml it read), for a watcher to tell when it is out of date.
	Inputs []string
}

// Tool is one installed command, callable by an agent.
type Tool struct {
	// Name is the tool's name: unique in the catalog, and a valid MCP tool
	// name.
	Name string
	// Command is the command the runner runs; Plugin is the installed
	// plugin that provides it.
	Command string
	Plugin  string
	// Commit is the git commit plugins.toml records for the plugin ("" for
	// a local source).
	Commit string
	// Description is the command's description (its plugin's when it has
	// none), as rendered text: no control, escape or bidi characters.
	Description string
	// Args are the declared positional arguments, in argv order; FreeForm
	// is true when there are none and the tool takes a list of strings.
	Args     []manifest.Arg
	FreeForm bool
	// Dangerous is the command's own flag: it has side effects worth
	// confirming.
	Dangerous bool
	// Grants is what plugins.toml records as granted to the plugin,
	// narrowed by the admin policy for its tier: all that the runner will
	// allow it (settings.Settings.Grants).
	Grants manifest.Capabilities
	// Hooks names the plugin's approved hooks, sorted.
	Hooks []string
	// Tier is the plugin's trust tier under the trust in force.
	Tier trust.Tier
	// Runtime is "native" or "wasm"; Protocol is "fledge-v1", or "" for
	// a plugin that runs with inherited stdio.
	Runtime  string
	Protocol string
	// ReadOnly says nothing fledge grants lets the command change
	// anything (see the package doc for what that does and does not
	// promise).
	ReadOnly bool
	// Confinement is how the kernel confines a native plugin's own code
	// here (confine.StatusOf; zero for wasm, and after Unconfine).
	Confinement confine.Status
	// InputSchema is the JSON Schema of the tool's arguments.
	InputSchema *jsonschema.Schema
	// JSONOutput says the command prints one JSON value (output =
	// "json"); OutputSchema is the schema it declares for it, or nil.
	JSONOutput   bool
	OutputSchema *jsonschema.Schema

	resolve       func() (*jsonschema.Resolved, error)
	resolveOutput func() (*jsonschema.Resolved, error)
	schemaJSON    json.RawMessage
}

// Collision is a command that more than one plugin provides.
type Collision struct {
	Command string
	// Plugins are the providers, sorted; Tools the name each one's tool
	// got, in the same order.
	Plugins []string
	Tools   []string
}

// Edited is a live-linked plugin whose plugin.toml is not the one
// approved when it was linked; Source is the directory it links.
type Edited struct {
	Plugin, Source string
}

// Skipped is a recorded command that is not offered as a tool.
type Skipped struct {
	Plugin, Command, Reason string
}

// Load builds the catalog of what is installed under paths: plugins.toml,
// the settings in force (for tiers and effective grants) and, where the
// record cannot say enough, plugins' installed plugin.toml.
func Load(paths home.Paths, s *settings.Settings) (*Catalog, error) {
	return LoadSeeded(paths, nil, s)
}

// LoadSeeded is Load with the plugins of read-only seed directories
// (FLEDGE_SEED_DIR) that the home does not have, the first seed's first,
// as the runner finds them. A seed whose plugins.toml cannot be read adds
// nothing.
func LoadSeeded(paths home.Paths, seeds []string, s *settings.Settings) (*Catalog, error) {
	file, err := lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock()).LoadCached(paths.DecodedPluginsFile())
	if err != nil {
		return nil, err
	}
	inputs := append([]string{paths.PluginsFile()}, s.Files()...)
	if len(seeds) > 0 {
		merged := *file
		merged.Plugins = append([]lockfile.Plugin(nil), file.Plugins...)
		for _, dir := range seeds {
			seedFile := filepath.Join(dir, "plugins.toml")
			inputs = append(inputs, seedFile)
			lf, err := lockfile.LoadFile(seedFile)
			if err != nil {
				continue
			}
			for _, p := range lf.Plugins {
				if _, ok := merged.Get(p.Name); !ok {
					merged.Plugins = append(merged.Plugins, p)
				}
			}
		}
		file = &merged
	}
	c := Build(file, s, func(plugin string) ([]byte, error) {
		path := filepath.Join(paths.PluginDir(plugin), manifest.FileName)
		inputs = append(inputs, path)
		return manifest.ReadFile(path)
	})
	c.Inputs = inputs
	return c, nil
}

// kernel is what this kernel can confine, asked once.
var kernel = sync.OnceValue(confine.Detect)

// Unconfine records that confinement is turned off (by says who, as
// FLEDGE_CONFINE=off): no tool's own code is then confined, so none is
// read-only by enforcement.
func (c *Catalog) Unconfine(by string) {
	for _, t := range c.Tools {
		if t.Runtime != manifest.RuntimeWasm {
			t.Confinement = confine.Status{Scope: t.Confinement.Scope, Network: t.Confinement.Network, Reason: "turned off by " + by}
		}
	}
}

// Build builds the catalog of file's plugins, each with the tier and
// effective grants s decides (nil: no configuration and no policy).
// installed reads a plugin's installed plugin.toml; it is called only for
// live links and for records without command details, and may be nil.
func Build(file *lockfile.File, s *settings.Settings, installed func(plugin string) ([]byte, error)) *Catalog {
	c := &Catalog{Tools: []*Tool{}, Collisions: []Collision{}, Skipped: []Skipped{}, Edited: []Edited{}}
	for i := range file.Plugins {
		p := &file.Plugins[i]
		if p.IsDisabled() {
			// Off means off: no tool, and no name taken from another
			// plugin's tool.
			for _, name := range p.Commands {
				c.Skipped = append(c.Skipped, Skipped{Plugin: p.Name, Command: name, Reason: "its plugin is disabled by " + p.Disabled()})
			}
			continue
		}
		g := s.Grants(p)
		if r := g.Revoked; r != nil {
			for _, name := range p.Commands {
				c.Skipped = append(c.Skipped, Skipped{Plugin: p.Name, Command: name, Reason: "its plugin is " + r.Text() + " (" + r.List + ")"})
			}
			continue
		}
		c.addPlugin(p, g, installed)
	}
	c.name()
	c.offer(s.Policy())
	return c
}

func (c *Catalog) addPlugin(p *lockfile.Plugin, g settings.Grants, installed func(string) ([]byte, error)) {
	details := p.CommandDetails
	protocol, runtime := p.Protocol, p.Runtime
	// The scope the approved manifest declared, as recorded with it.
	confinement := confine.StatusOf(p.Requested.Filesystem, confine.Grants{Filesystem: g.Capabilities.Filesystem, Network: g.Capabilities.Network}, kernel(), p.Unconfined())
	pluginDesc := p.Description
	if (len(details) == 0 || p.KindInfo().Live) && installed != nil {
		if data, err := installed(p.Name); err != nil {
			// Nothing to read: the record is all there is.
		} else if len(details) > 0 {
			// A live link with a record: what it declares is what was
			// approved when it was linked; an edit is said, not served.
			if p.ManifestEdited(data) {
				c.Edited = append(c.Edited, Edited{Plugin: p.Name, Source: p.Source})
			}
		} else if m, err := manifest.Decode(data); err == nil && p.ApprovedManifest(data) {
			// A record without details (the Rust fledge wrote none): the
			// installed plugin.toml, when it is the one approved.
			details = m.Commands
			protocol, runtime = m.Plugin.Protocol, m.Plugin.Runtime
			if m.Plugin.Description != "" {
				pluginDesc = m.Plugin.Description
			}
		}
	}
	if runtime == "" {
		runtime = "native"
	}
	hooks := make([]string, 0, len(p.Hooks))
	for h := range p.Hooks {
		hooks = append(hooks, h)
	}
	sort.Strings(hooks)
	seen := map[string]bool{}
	for _, name := range p.Commands {
		if seen[name] {
			continue
		}
		seen[name] = true
		if msg := manifest.CheckName(name); msg != "" {
			c.Skipped = append(c.Skipped, Skipped{Plugin: p.Name, Command: name,
				Reason: "its name " + msg + ", so it cannot be a tool"})
			continue
		}
		var cmd manifest.Command
		if i := slices.IndexFunc(details, func(d manifest.Command) bool { return d.Name == name }); i >= 0 {
			cmd = details[i]
		}
		// What was approved stays the floor: a live link's edit cannot
		// take away the confirmation a recorded dangerous command needs.
		if i := slices.IndexFunc(p.CommandDetails, func(d manifest.Command) bool { return d.Name == name }); i >= 0 && p.CommandDetails[i].Dangerous {
			cmd.Dangerous = true
		}
		t := &Tool{
			Command: name, Plugin: p.Name, Commit: p.Commit, Dangerous: cmd.Dangerous,
			Grants: g.Capabilities, Hooks: hooks, Tier: g.Tier,
			Runtime: runtime, Protocol: protocol,
		}
		t.Description = termsafe.Text(strings.TrimSpace(cmd.Description))
		if t.Description == "" {
			t.Description = termsafe.Text(strings.TrimSpace(pluginDesc))
		}
		if t.Description == "" {
			t.Description = fmt.Sprintf("Runs %s, a command of the fledge plugin %s.", name, p.Name)
		}
		t.Args = declared(cmd.Args)
		t.FreeForm = len(t.Args) == 0
		t.ReadOnly = !t.Dangerous && protocol == manifest.ProtocolV1 && !g.Capabilities.Modifies() && len(p.Hooks) == 0
		if runtime != manifest.RuntimeWasm {
			t.Confinement = confinement
		}
		t.InputSchema = inputSchema(t.Args)
		if why := t.setOutput(cmd); why != "" {
			// An agent would be promised what nothing checks.
			c.Skipped = append(c.Skipped, Skipped{Plugin: p.Name, Command: name, Reason: why})
			continue
		}
		s := t.InputSchema
		t.resolve = sync.OnceValues(func() (*jsonschema.Resolved, error) { return s.Resolve(nil) })
		t.schemaJSON = inputSchemaJSON(t.Args)
		c.Tools = append(c.Tools, t)
	}
}

// declared is a command's args as a tool takes them: in order, each name
// once (the first), none unnamed. validate refuses the rest, but a
// plugins.toml may hold anything.
func declared(args []manifest.Arg) []manifest.Arg {
	out := []manifest.Arg{}
	seen := map[string]bool{}
	for _, a := range args {
		if a.Name == "" || seen[a.Name] {
			continue
		}
		seen[a.Name] = true
		out = append(out, a)
	}
	return out
}

// Tool returns the tool named name.
func (c *Catalog) Tool(name string) (*Tool, bool) {
	i, ok := slices.BinarySearchFunc(c.Tools, name, func(t *Tool, n string) int { return strings.Compare(t.Name, n) })
	if !ok {
		return nil, false
	}
	return c.Tools[i], true
}
