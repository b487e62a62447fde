package install

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/trust"
)

// Audit is what an installed plugin's record and its installed plugin.toml
// say together: its tier, what it requests, what it runs on, and what
// deserves a warning.
type Audit struct {
	Tier trust.Tier
	// Requested is what the plugin requests: the record's, or for a
	// record without it (one the Rust fledge wrote) what the installed
	// plugin.toml asks for now.
	Requested manifest.Capabilities
	// HasLifecycleHooks says whether the installed plugin.toml declares a
	// hook besides build, approved or not.
	HasLifecycleHooks bool
	// Runtime is the installed plugin.toml's ("native" or "wasm"), or the
	// record's when that cannot be read; Sandboxed is set for wasm.
	Runtime   string
	Sandboxed bool
	// Warnings are the findings, in a fixed order.
	Warnings []string
	// FilesMissing says the plugin's installed directory is gone (the
	// last warning says so); ManifestErr is why its plugin.toml could not
	// be read otherwise (the last warning quotes it). The command layer
	// words both for a person.
	FilesMissing bool
	ManifestErr  error
}

// AuditPlugin compares a plugin's record with its installed plugin.toml;
// tier is the plugin's (package settings decides it).
// Its warnings: approved hooks that can never run, an unverified source
// granted what only naming grants (exec, network, hooks), an installed
// plugin.toml that is unreadable, invalid or not the one approved,
// requested capabilities not granted, and hooks not approved.
func AuditPlugin(paths home.Paths, p *lockfile.Plugin, tier trust.Tier) Audit {
	a := Audit{Tier: tier, Requested: p.Requested, Runtime: p.Runtime, Warnings: []string{}}
	if a.Runtime == "" {
		a.Runtime = manifest.RuntimeNative
	}
	warn := func(format string, args ...any) { a.Warnings = append(a.Warnings, fmt.Sprintf(format, args...)) }
	for _, name := range slices.Sorted(maps.Keys(p.Hooks)) {
		if msg := manifest.CheckCommand(p.Hooks[name]); msg != "" {
			warn("approved hook %s %s; it will never run", name, msg)
		}
	}
	if risky := unverifiedItems(a.Tier, (Grants{Capabilities: p.Capabilities, Hooks: p.Hooks}).Items()); len(risky) > 0 {
		warn("unverified source with %s granted", strings.Join(risky, ", "))
	}
	dir := paths.PluginDir(p.Name)
	data, err := manifest.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		if _, serr := os.Lstat(dir); errors.Is(serr, fs.ErrNotExist) {
			a.FilesMissing = true
			warn("its installed files are missing: reinstall it")
			return a
		}
		a.ManifestErr = err
		warn("installed manifest unreadable: %v", err)
		return a
	}
	if p.ManifestEdited(data) {
		if p.KindInfo().Live {
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
	for name := range m.Hooks.Map() {
		if name != manifest.HookBuild {
			a.HasLifecycleHooks = true
		}
	}
	if p.ManifestHash == "" {
		a.Requested = m.Capabilities
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
	return a
}
