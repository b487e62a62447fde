package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// EnvPolicy lists policy files to apply after the system one, separated as
// PATH is.
const EnvPolicy = "FLEDGE_POLICY"

// MaxSize bounds how much of a policy file is read.
const MaxSize = 1 << 20

// Set is the policy in force: its layers, system first. The zero Set (and
// a nil one) has no layers and allows everything.
type Set struct {
	layers []*Layer
	// System is the system policy path looked for ("" when none is), and
	// SystemFound whether it was there.
	System      string
	SystemFound bool
	// SystemProtection says whether the system policy (its file and its
	// drop-ins) is where only root can change it (nil when there is
	// neither; see CheckProtected).
	SystemProtection *Protection
	// DropIns are the drop-in files read (DropIns: layers after the
	// system file), each with its own protection, and DropInsIgnored the
	// other entries of their directory, which are not read.
	DropIns        []DropIn
	DropInsIgnored []string
	// revoked are the entries of every revocation list read, and
	// revocationErrs the lists that could not be (revocation.go).
	revoked        []Revocation
	revocationErrs []RevocationError
}

// Inputs say where the layers come from.
type Inputs struct {
	// System is the system policy's path: SystemPath() in fledge, a
	// temporary file in tests, "" for none. A missing file is no layer.
	System string
	// Env is FLEDGE_POLICY's value: files that must exist.
	Env string
	// ConfigFile names config.toml in messages; Config is its contents.
	ConfigFile string
	Config     []byte
	// RevocationCache is the directory revocation lists fetched from
	// URLs are cached in (RevocationCacheFile); "" reads none.
	RevocationCache string
}

// Load reads every layer. Any layer that cannot be read or is invalid
// fails the whole load with an *InvalidError: callers then refuse what the
// policy governs.
func Load(in Inputs) (*Set, error) {
	s := &Set{System: in.System}
	if in.System != "" {
		data, err := bounded.ReadFile(in.System, MaxSize)
		var sysProt *Protection
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, &InvalidError{File: in.System, Err: err}
		default:
			l, err := Parse(in.System, data)
			if err != nil {
				return nil, err
			}
			l.Scope = ScopeSystem
			s.layers, s.SystemFound = append(s.layers, l), true
			prot := CheckProtected(in.System)
			sysProt = &prot
		}
		files, ignored, err := DropIns(in.System)
		if err != nil {
			return nil, &InvalidError{File: DropInDir(in.System), Err: err}
		}
		s.DropInsIgnored = ignored
		for _, f := range files {
			data, err := bounded.ReadFile(f, MaxSize)
			if err != nil {
				return nil, &InvalidError{File: f, Err: err}
			}
			l, err := Parse(f, data)
			if err != nil {
				return nil, err
			}
			l.Scope = ScopeSystem
			s.layers = append(s.layers, l)
			s.DropIns = append(s.DropIns, DropIn{File: f, Protection: CheckProtected(f)})
		}
		s.SystemProtection = systemProtection(sysProt, s.DropIns)
	}
	for _, f := range filepath.SplitList(in.Env) {
		if f == "" {
			continue
		}
		data, err := bounded.ReadFile(f, MaxSize)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				err = fmt.Errorf("it is named in %s and does not exist", EnvPolicy)
			}
			return nil, &InvalidError{File: f, Err: err}
		}
		l, err := Parse(f, data)
		if err != nil {
			return nil, err
		}
		l.Scope = ScopeEnv
		s.layers = append(s.layers, l)
	}
	if mayHavePolicy(in.Config) {
		l, err := parse(in.ConfigFile, "policy.", in.Config, func(k toml.Key) bool { return len(k) > 0 && k[0] == "policy" })
		if err != nil {
			return nil, err
		}
		if l.hasRules() {
			l.Scope = ScopeConfig
			s.layers = append(s.layers, l)
		}
	}
	s.loadRevocations(in.RevocationCache)
	return s, nil
}

// mayHavePolicy reports whether config.toml could hold a policy table: it
// names "policy", or has an escape that could spell it in a quoted key.
// Most config files do neither and are not decoded a second time.
func mayHavePolicy(data []byte) bool {
	return bytes.Contains(data, []byte("policy")) || bytes.Contains(data, []byte(`\u`)) || bytes.Contains(data, []byte(`\U`))
}

func (l *Layer) hasRules() bool {
	return l.hasAllow || len(l.deny) > 0 || l.caps != nil || l.hooks != nil || l.require != "" || l.minAge > 0 || l.hasOwner ||
		l.hasToolAllow || len(l.toolDeny) > 0 || l.confineRequire != nil || l.confineAllowOff != nil || l.protectRequire != nil || l.revocation != nil || len(l.required) > 0 ||
		!l.provenance.empty() || len(l.mirrors) > 0
}

// Layers lists the layers, system first.
func (s *Set) Layers() []*Layer {
	if s == nil {
		return nil
	}
	return s.layers
}

// Empty reports whether no policy applies.
func (s *Set) Empty() bool { return s == nil || len(s.layers) == 0 }

// Digest identifies the policy's exact contents: it changes when any layer
// is added, removed or edited.
func (s *Set) Digest() string {
	h := sha256.New()
	for _, l := range s.Layers() {
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00", l.Scope, l.Where(), len(l.raw))
		h.Write(l.raw)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Denial is one thing a policy rule refuses.
type Denial struct {
	// Item is what was refused: "source", "pin", "tag_age", "trust", a
	// capability name, or "hooks".
	Item string
	// Rule names the rule as written ("[capabilities] unverified"), File
	// the file it is in.
	Rule, File string
	// Reason says what the rule wants, in the user's terms.
	Reason string
}

// String is "exec: [capabilities] unverified in /etc/fledge/policy.toml
// allows only store".
func (d Denial) String() string {
	return fmt.Sprintf("%s: %s", d.Item, d.Text())
}

// Text is the denial without its item: the rule, the file and the reason.
func (d Denial) Text() string {
	return fmt.Sprintf("%s in %s %s", d.Rule, d.File, d.Reason)
}

// DeniedError reports what a policy refuses to let happen to a plugin.
type DeniedError struct {
	Plugin  string
	Denials []Denial
}

func (e *DeniedError) Error() string {
	var parts []string
	for _, d := range e.Denials {
		parts = append(parts, d.String())
	}
	who := "it"
	if e.Plugin != "" {
		who = e.Plugin
	}
	return fmt.Sprintf("the admin policy refuses %s: %s", who, strings.Join(parts, "; "))
}

// Deny returns an error for the denials, or nil when there are none.
func Deny(plugin string, ds ...Denial) error {
	if len(ds) == 0 {
		return nil
	}
	return &DeniedError{Plugin: plugin, Denials: ds}
}
