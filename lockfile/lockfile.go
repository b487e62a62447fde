package lockfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/rogpeppe/go-internal/lockedfile"
	"github.com/rogpeppe/go-internal/renameio"

	"github.com/corvidlabs/fledge-go/internal/bounded"
	"github.com/corvidlabs/fledge-go/manifest"
)

// FormatVersion is the plugins.toml layout this fledge writes. A file with a
// higher format_version came from a newer fledge and is never overwritten.
const FormatVersion = 1

// MaxSize bounds how much of plugins.toml is read.
const MaxSize = 32 << 20

// Source kinds.
const (
	KindGit       = "git"   // cloned from a git URL
	KindLocalLink = "link"  // live link to a local directory
	KindLocalCopy = "local" // snapshot of a local directory
	KindOCI       = "oci"   // pulled from an OCI registry or image layout
)

// File is the whole of plugins.toml.
type File struct {
	// FormatVersion is absent in files written by the Rust fledge (read
	// as 0) and FormatVersion in files written here.
	FormatVersion int `toml:"format_version,omitempty"`
	// UnconfinedBy, when set, is the user who turned kernel confinement
	// off for every native plugin (fledge plugins unconfine --all), at
	// UnconfinedAt (RFC 3339); the grant log records the change too.
	UnconfinedBy string `toml:"unconfined_by,omitempty"`
	UnconfinedAt string `toml:"unconfined_at,omitempty"`
	// GrantLog anchors the grant log (FLEDGE_HOME/grants.log) to this
	// file: the last record written in the same transaction as it. Records
	// after it belong to a change that never landed; a log that ends
	// before it was cut short. Absent in files written by the Rust fledge.
	GrantLog *LogAnchor `toml:"grant_log,omitempty"`
	Plugins  []Plugin   `toml:"plugins"`
}

// LogAnchor names the last grant log record committed with plugins.toml.
type LogAnchor struct {
	// Records is the record's sequence number (the count of records).
	Records int64 `toml:"records"`
	// Size is the log's length in bytes up to and including that record.
	Size int64 `toml:"size"`
	// Head is that record's hash.
	Head string `toml:"head"`
}

// Plugin is one [[plugins]] entry. The first fields are the Rust fledge's;
// the rest are what exactness needs.
type Plugin struct {
	Name      string   `toml:"name"`
	Source    string   `toml:"source"`
	Version   string   `toml:"version"`
	Installed string   `toml:"installed"`
	Commands  []string `toml:"commands"`
	PinnedRef string   `toml:"pinned_ref,omitempty"`
	// Runtime is the Rust fledge's field ("wasm" or empty), kept so a file
	// it wrote round-trips.
	Runtime      string                `toml:"runtime,omitempty"`
	Capabilities manifest.Capabilities `toml:"capabilities"`

	// Description is the manifest's description at install.
	Description string `toml:"description,omitempty"`
	// CommandDetails describes each command for agents (description,
	// typed args, dangerous), recorded at install so listing reads no
	// manifests.
	CommandDetails []manifest.Command `toml:"command_details,omitempty"`

	// Kind is KindGit, KindLocalLink or KindLocalCopy ("" in Rust files:
	// treated as git unless Source is a path).
	Kind string `toml:"kind,omitempty"`
	// URL is the exact location fetched (for owner/repo shorthand, the
	// expansion in force at install), without credentials.
	URL string `toml:"url,omitempty"`
	// RefKind says what PinnedRef was: tag, branch, commit, constraint or
	// default.
	RefKind string `toml:"ref_kind,omitempty"`
	// Tag is the tag the commit was installed from (for tag and constraint
	// pins), so a tag that later points elsewhere is seen as moved.
	Tag string `toml:"tag,omitempty"`
	// Commit is the exact git commit installed (empty for local sources
	// that are not git repositories). For an OCI artifact it is the
	// origin's commit, as the artifact's annotations name it.
	Commit string `toml:"commit,omitempty"`
	// OCIDigest is the digest ("sha256:…") of the OCI manifest installed:
	// for an oci:// source, and for a source fetched through an OCI
	// mirror.
	OCIDigest string `toml:"oci_digest,omitempty"`
	// Origin is where the installed tree came from first, when that is
	// not where it was fetched: the git source an OCI artifact names in
	// its annotations, or the source a mirror rule rewrote.
	Origin string `toml:"origin,omitempty"`
	// Mirror is where the tree was fetched from when a mirror rule (the
	// policy's [mirrors]) sent the fetch of Source elsewhere: an oci://
	// repository or a git URL, without credentials.
	Mirror string `toml:"mirror,omitempty"`
	// SourceHash is the content hash of the fetched tree before building:
	// the same on every machine that installs this commit.
	SourceHash string `toml:"source_hash,omitempty"`
	// TreeHash is the content hash of the installed tree after building.
	TreeHash string `toml:"tree_hash,omitempty"`
	// ManifestHash is the hash of the plugin.toml the user approved.
	ManifestHash string `toml:"manifest_hash,omitempty"`
	// Protocol is the manifest's protocol when approved.
	Protocol string `toml:"protocol,omitempty"`
	// Requested is what the manifest requested when the user approved.
	Requested manifest.Capabilities `toml:"requested,omitempty"`
	// Hooks holds the approved hooks, name → exact command. A hook whose
	// command differs from the one recorded here is not approved.
	Hooks map[string]string `toml:"hooks,omitempty"`
	// BuildCommand is the approved build command (the build hook or the
	// auto-detected one), empty when none ran.
	BuildCommand string `toml:"build_command,omitempty"`
	// RegistryName is the registry name it was installed by (fledge
	// plugins install NAME), which admin policies may name.
	RegistryName string `toml:"registry_name,omitempty"`
	// UnconfinedBy, when set, is the user who turned kernel confinement
	// off for this plugin (fledge plugins unconfine), at UnconfinedAt
	// (RFC 3339); the grant log records the change too.
	UnconfinedBy string `toml:"unconfined_by,omitempty"`
	UnconfinedAt string `toml:"unconfined_at,omitempty"`
	// DisabledBy, when set, is the user who disabled the plugin (fledge
	// plugins disable), at DisabledAt (RFC 3339): it then has no entry
	// point (disabled.go); the grant log records the change too.
	DisabledBy string `toml:"disabled_by,omitempty"`
	DisabledAt string `toml:"disabled_at,omitempty"`
	// Provenance is who signed the installed revision, as verified at
	// install (nil: not verified, as in records written before fledge
	// verified signatures, or by the Rust fledge).
	Provenance *Provenance `toml:"provenance,omitempty"`

	// everyone is File.Unconfined of the file the record was read from
	// (Parse sets it), so that Unconfined answers for both switches.
	everyone string
}

// Unconfined says who turned kernel confinement off for every plugin
// (fledge plugins unconfine --all) and when, as the runner and audit show
// it after "turned off by"; "" when nobody did.
func (f *File) Unconfined() string {
	return offText(f.UnconfinedBy, f.UnconfinedAt, "every plugin", "fledge plugins unconfine --all")
}

// offText is who turned confinement off for whom, when, and with what.
func offText(by, at, whom, how string) string {
	if by == "" {
		return ""
	}
	s := by + " for " + whom
	if at != "" {
		s += " at " + at
	}
	return s + " (" + how + ")"
}

// Unconfined says who turned kernel confinement off for this plugin and
// when, as the runner and audit show it after "turned off by": the switch
// for every plugin of the file it was read from (File.Unconfined) first,
// then its own (fledge plugins unconfine NAME); "" when it is on.
func (p *Plugin) Unconfined() string {
	if p.everyone != "" {
		return p.everyone
	}
	return offText(p.UnconfinedBy, p.UnconfinedAt, "this plugin", "fledge plugins unconfine")
}

// IsLocal reports whether the plugin came from a local directory.
func (p *Plugin) IsLocal() bool { return p.KindInfo().Local }

// ShortName is the name with a leading "fledge-plugin-" or "fledge-" removed.
func ShortName(name string) string {
	for _, pre := range []string{"fledge-plugin-", "fledge-"} {
		if s, ok := strings.CutPrefix(name, pre); ok && s != "" {
			return s
		}
	}
	return name
}

// Parse decodes plugins.toml.
func Parse(data []byte) (*File, error) {
	var f File
	if len(bytes.TrimSpace(data)) == 0 {
		return &f, nil
	}
	if err := toml.Unmarshal(data, &f); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, &CorruptError{Line: row, Column: col, Err: err}
		}
		return nil, &CorruptError{Err: err}
	}
	if f.FormatVersion > FormatVersion {
		return nil, &FutureError{Version: f.FormatVersion}
	}
	seen := map[string]bool{}
	for i := range f.Plugins {
		p := &f.Plugins[i]
		p.everyone = f.Unconfined()
		if p.Commands == nil {
			p.Commands = []string{}
		}
		// Names become paths under FLEDGE_HOME and link names: one that
		// could climb out ("../../x") must never reach them.
		if msg := manifest.CheckName(p.Name); msg != "" {
			return nil, &CorruptError{Err: fmt.Errorf("entry %d: name %s", i+1, msg)}
		}
		if seen[p.Name] {
			return nil, &CorruptError{Err: fmt.Errorf("entry %d: %q is listed twice", i+1, p.Name)}
		}
		seen[p.Name] = true
		for _, c := range p.Commands {
			if msg := manifest.CheckName(c); msg != "" {
				return nil, &CorruptError{Err: fmt.Errorf("entry %d (%s): command %s", i+1, p.Name, msg)}
			}
		}
	}
	return &f, nil
}

// Marshal encodes f with plugins sorted by name, so the file is
// deterministic and diffs well.
func Marshal(f *File) ([]byte, error) {
	out := *f
	out.FormatVersion = FormatVersion
	out.Plugins = append([]Plugin(nil), f.Plugins...)
	sort.SliceStable(out.Plugins, func(i, j int) bool { return out.Plugins[i].Name < out.Plugins[j].Name })
	var buf bytes.Buffer
	buf.WriteString("# Installed fledge plugins. Written by fledge; edit with `fledge plugins`.\n")
	enc := toml.NewEncoder(&buf)
	enc.SetIndentTables(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// CorruptError reports a plugins.toml that cannot be parsed.
type CorruptError struct {
	Path         string
	Line, Column int
	Err          error
	// Input marks a file fledge only reads (sync --file), never writes.
	Input bool
}

func (e *CorruptError) Error() string {
	where := e.Path
	if where == "" {
		where = "plugins.toml"
	}
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", where, e.Line, e.Column)
	}
	// go-toml says "toml: …"; the file was named already.
	why := strings.TrimPrefix(e.Err.Error(), "toml: ")
	if e.Input {
		return fmt.Sprintf("%s is not a valid plugins.toml: %s", where, why)
	}
	return fmt.Sprintf("%s is corrupt: %s; fledge will not overwrite it: fix or move it aside", where, why)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// FutureError reports a plugins.toml written by a newer fledge.
type FutureError struct {
	Path    string
	Version int
}

func (e *FutureError) Error() string {
	where := e.Path
	if where == "" {
		where = "plugins.toml"
	}
	return fmt.Sprintf("%s has format_version %d, newer than this fledge understands (%d): upgrade fledge", where, e.Version, FormatVersion)
}

// Store is plugins.toml on disk.
type Store struct {
	path string
	lock string
}

// NewStore returns the store at path, locked through the side file lock.
func NewStore(path, lock string) *Store { return &Store{path: path, lock: lock} }

// Path is the file's location.
func (s *Store) Path() string { return s.path }

// Load reads the file without taking the lock: writes are atomic renames,
// so a reader always sees a whole file. A missing file is an empty one.
func (s *Store) Load() (*File, error) {
	data, err := s.Read()
	if err != nil {
		return nil, err
	}
	return s.Decode(data)
}

// Read returns the file's bytes, bounded like Load; a missing file reads as
// empty. With Decode it lets a caller key a cache on the exact contents.
func (s *Store) Read() ([]byte, error) {
	data, err := readBounded(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Decode parses bytes returned by Read, naming the store's path in errors.
func (s *Store) Decode(data []byte) (*File, error) {
	f, err := Parse(data)
	return f, s.annotate(err)
}

// Update runs fn on the current contents under the cross-process lock and
// writes the result atomically if fn returns nil. fn may be called with a
// File that another process changed since the caller last looked.
func (s *Store) Update(fn func(*File) error) error { return s.Transact(fn, nil) }

// Transact is Update with a second step in the same transaction: once
// change has returned nil, commit runs under the same lock with the changed
// File and the bytes the file held before (nil when there was none), and
// the file is written only if it returns nil too. The grant log appends its
// record there and sets f.GrantLog, so the log and plugins.toml change
// together (see package grantlog for how a crash between the two is
// undone).
func (s *Store) Transact(change func(*File) error, commit func(f *File, before []byte) error) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(s.path), err)
	}
	unlock, err := lockedfile.MutexAt(s.lock).Lock()
	if err != nil {
		return fmt.Errorf("lock %s: %w", s.lock, err)
	}
	defer unlock()
	before, err := s.Read()
	if err != nil {
		return err
	}
	f, err := s.Decode(before)
	if err != nil {
		return err
	}
	if err := change(f); err != nil {
		return err
	}
	if commit != nil {
		if err := commit(f, before); err != nil {
			return err
		}
	}
	data, err := Marshal(f)
	if err != nil {
		return err
	}
	// Write through a symlinked plugins.toml (kept in a dotfiles repo,
	// say) instead of replacing the link with a file.
	target := s.path
	if r, err := filepath.EvalSymlinks(s.path); err == nil {
		target = r
	}
	if err := renameio.WriteFile(target, data); err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	// renameio creates 0600 files; plugins.toml is no secret, and a shared
	// read-only home must stay listable (the Rust fledge wrote 0644).
	return os.Chmod(target, 0o644)
}

func (s *Store) annotate(err error) error {
	var ce *CorruptError
	if errors.As(err, &ce) {
		ce.Path = s.path
	}
	var fe *FutureError
	if errors.As(err, &fe) {
		fe.Path = s.path
	}
	return err
}

func readBounded(path string) ([]byte, error) { return bounded.ReadFile(path, MaxSize) }

// LoadFile reads a plugins.toml from anywhere (such as a team's copy for
// sync), bounded like the store's own.
func LoadFile(path string) (*File, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	var ce *CorruptError
	if errors.As(err, &ce) {
		ce.Input = true
	}
	return f, (&Store{path: path}).annotate(err)
}
