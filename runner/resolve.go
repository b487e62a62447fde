package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/corvidlabs/fledge-go/binfmt"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/derived"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
)

// Target is a command resolved to the installed plugin that owns it.
type Target struct {
	// Command is the command name as invoked.
	Command string
	// Entry is the plugin's plugins.toml record; its Capabilities are the
	// only grants in force.
	Entry lockfile.Plugin
	// Manifest is the installed plugin.toml, read at run time.
	Manifest *manifest.Manifest
	// Root is the plugin's installed tree with symlinks resolved.
	Root string
	// Binary is the command's executable with symlinks resolved; it lies
	// inside Root.
	Binary string
	// Seed is the seed directory the plugin was found in ("" for
	// FLEDGE_HOME; seed.go).
	Seed string

	// granted, when set, is what the admin policy leaves of Entry's
	// grants; policy holds, for each capability it took away, the rule
	// that did; sourceDenial the rule that denies the plugin's source.
	granted      *manifest.Capabilities
	policy       map[manifest.Capability]policy.Denial
	sourceDenial *policy.Denial
	// compiled says Binary's header is an executable format binfmt knows:
	// a compiled program, whose text wantedEnv does not read for names
	// (real ones all hold the NUL byte confine.NamedIn tells them by).
	compiled bool
}

// IsWasm reports whether the plugin runs in the wasm sandbox, as its
// installed manifest says.
func (t *Target) IsWasm() bool { return t.Manifest.IsWasm() }

// Grants returns what plugins.toml records as granted, narrowed by the
// admin policy (see Runner.Settings). The manifest never widens it.
func (t *Target) Grants() manifest.Capabilities {
	if t.granted != nil {
		return *t.granted
	}
	return t.Entry.Capabilities
}

// Resolve finds the installed plugin that owns command. Only plugins.toml
// is consulted: never PATH, never a name prefix. The manifest is loaded from
// the plugin's installed tree and the binary is checked, after resolving
// symlinks, to stay inside that tree, and to be built for this platform.
// When the owner was found but cannot run, the error comes with a Target
// holding its entry (for advice that names it); its other fields may be
// empty.
func Resolve(paths home.Paths, command string) (*Target, error) {
	return resolveIn(paths, "", command)
}

// resolveIn is Resolve, but when plugin is not empty the command must be
// one that plugins.toml records for that plugin: two plugins may record
// the same command (in a file fledge did not write), and a tool catalog
// names each.
func resolveIn(paths home.Paths, plugin, command string) (*Target, error) {
	store := lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock())
	var entry *lockfile.Plugin
	var ok bool
	var err error
	if plugin == "" {
		entry, ok, err = store.CommandOwner(command, paths.CommandIndexFile(), paths.PluginsDigestFile())
	} else if lf, lerr := store.Load(); lerr != nil {
		err = lerr
	} else if entry, ok = lf.Get(plugin); ok {
		ok = slices.Contains(entry.Commands, command)
	}
	if err != nil {
		return nil, &Error{Code: CodeStateCorrupt, Err: err}
	}
	if !ok && plugin != "" {
		return nil, &Error{Code: CodeUnknownCommand, Err: fmt.Errorf("%w %q: plugin %s is not installed with it", ErrUnknownCommand, command, plugin)}
	}
	if !ok {
		msg := "no installed plugin provides it"
		lf, err := store.Load()
		if err != nil {
			return nil, &Error{Code: CodeStateCorrupt, Err: err}
		}
		if p, err := lf.Resolve(command); err == nil && len(p.Commands) > 0 {
			// A plugin's name is not a command, but say what it provides.
			msg = fmt.Sprintf("it is the name of plugin %s, whose commands are: %s", p.Name, strings.Join(p.Commands, ", "))
		}
		return nil, &Error{Code: CodeUnknownCommand, Err: fmt.Errorf("%w %q: %s", ErrUnknownCommand, command, msg)}
	}
	if msg := manifest.CheckName(entry.Name); msg != "" {
		return nil, errorf(CodeStateCorrupt, "plugins.toml names plugin %s: %s", entry.Name, msg)
	}
	t := &Target{Command: command, Entry: *entry}
	// Off means off: nothing of a disabled plugin is read or started.
	if err := entry.DisabledErr(fmt.Sprintf("command %q does not run", command)); err != nil {
		return t, &Error{Code: CodePluginDisabled, Err: err}
	}

	return resolveTree(t, paths.PluginDir(entry.Name), paths.DecodedManifestFile(entry.Name))
}

// resolveTree finishes resolving t, whose plugin is installed at dir,
// with its manifest decoded through the derived file at cache
// (decodeManifest).
func resolveTree(t *Target, dir, cache string) (*Target, error) {
	entry, command := &t.Entry, t.Command
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return t, errorf(CodePluginMissing, "plugin %s provides %q, but its directory %s is missing: %v", entry.Name, command, dir, err)
	}
	if root, err = filepath.Abs(root); err != nil {
		return t, errorf(CodePluginMissing, "plugin %s: %v", entry.Name, err)
	}
	t.Root = root

	data, err := manifest.ReadFile(filepath.Join(root, manifest.FileName))
	if err != nil {
		return t, errorf(CodeLaunchFailed, "plugin %s: %v", entry.Name, err)
	}
	// A copied or cloned plugin runs only with the manifest that was
	// approved.
	if !entry.ApprovedManifest(data) {
		return t, errorf(CodeManifestChanged, "plugin %s's plugin.toml is not the one you approved", entry.Name)
	}
	// Unknown keys were reported when the plugin was validated and
	// installed; a run reads only what it needs.
	m, err := decodeManifest(cache, data)
	if err != nil {
		return t, errorf(CodeLaunchFailed, "plugin %s: %v", entry.Name, err)
	}
	t.Manifest = m
	if err := m.CheckProtocol(); err != nil {
		return t, &Error{Code: CodeProtocolMismatch, Err: fmt.Errorf("plugin %s: %w", entry.Name, err)}
	}
	switch m.Plugin.Runtime {
	case "", "native", manifest.RuntimeWasm:
	default:
		return t, errorf(CodeUnsupportedRuntime, "plugin %s declares runtime %q, which this fledge cannot run (it runs \"native\" and \"wasm\")", entry.Name, m.Plugin.Runtime)
	}
	c, ok := m.Command(command)
	if !ok {
		return t, errorf(CodeLaunchFailed, "plugins.toml says plugin %s provides %q, but its plugin.toml no longer declares it", entry.Name, command)
	}
	bin, err := resolveBinary(root, c.Binary, m.IsWasm())
	if err != nil {
		return t, err
	}
	// Say which platform a foreign binary is for, not "exec format error";
	// and know a compiled program, whose text names no variables
	// (wantedEnv), from its header alone.
	if f, err := os.Open(bin); err == nil {
		p, err := binfmt.CheckFile(f, c.Binary)
		f.Close()
		if err != nil {
			return t, &Error{Code: CodeUnsupportedPlatform, Err: fmt.Errorf("plugin %s: %w", entry.Name, err)}
		}
		t.compiled = p != nil
	}
	t.Binary = bin
	return t, nil
}

// manifestKind names a decoded plugin.toml among derived files.
const manifestKind = "plugin.toml decoded v1"

// decodeManifest is manifest.Decode of data through the derived file at
// cache (home.Paths.DecodedManifestFile), keyed on data's exact bytes: a
// run read and decoded the TOML every time, 60-130 µs in a fresh process
// (go-toml's decoder, and the manifest's key table built by reflection),
// where reading the decoded value back takes a small part of that. Only a
// manifest that decodes without error is stored, so a hit is what Decode
// returns; what fails to decode is decoded, and reported, every time.
func decodeManifest(cache string, data []byte) (*manifest.Manifest, error) {
	dc := derived.New(cache, manifestKind, derived.Sum(data))
	if body, ok := dc.Read(); ok {
		var m manifest.Manifest
		if derived.DecodeValue(body, &m) {
			return &m, nil
		}
	}
	m, err := manifest.Decode(data)
	if err != nil {
		return nil, err
	}
	if body, err := derived.AppendValue(nil, m); err == nil {
		dc.Put(body)
	}
	return m, nil
}

// resolveBinary checks, at run time, what install checked: the binary
// exists, is a regular executable file, and its real path stays inside the
// plugin's real root and outside any .git directory.
func resolveBinary(root, rel string, wasm bool) (string, error) {
	if msg := manifest.CheckBinaryPath(rel); msg != "" {
		return "", errorf(CodeBinaryOutsidePlugin, "binary %s; refusing to run it", msg)
	}
	p, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", errorf(CodeLaunchFailed, "binary %q does not exist in %s", rel, root)
		}
		return "", errorf(CodeLaunchFailed, "binary %q: %v", rel, err)
	}
	if !manifest.Within(root, p) {
		return "", errorf(CodeBinaryOutsidePlugin, "binary %q resolves to %s, outside the plugin directory %s; refusing to run it", rel, p, root)
	}
	// verify never hashes a .git directory: what lies there is not what
	// was approved and verified.
	if r, err := filepath.Rel(root, p); err != nil || manifest.InGitDir(r) {
		return "", errorf(CodeBinaryOutsidePlugin, "binary %q resolves to %s, inside a .git directory that fledge does not hash or verify; refusing to run it", rel, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", errorf(CodeLaunchFailed, "binary %q: %v", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return "", errorf(CodeLaunchFailed, "binary %q is not a regular file", rel)
	}
	if !wasm && runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return "", errorf(CodeLaunchFailed, "binary %q is not executable", rel)
	}
	return p, nil
}
