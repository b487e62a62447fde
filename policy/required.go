package policy

import (
	"fmt"
	"strings"

	"github.com/corvidlabs/fledge-go/manifest"
)

// Required plugins: [[required]] tables name a source, pinned to a ref
// (any source form install takes: "github.com/acme/fledge-plugin-x@v1.2.0",
// "acme/fledge-plugin-x@v1", a registry name with @ref), and the grants
// the policy pre-approves for it. `fledge plugins sync --policy` installs
// or updates exactly these, granting what the policy pre-approves within
// its own ceilings ([capabilities], [hooks]: a pre-approval they forbid
// is refused like any named grant), and records the policy as the
// approver; audit reports one missing or drifted.

type requiredRule struct {
	Source string   `toml:"source"`
	Grant  []string `toml:"grant"`
}

// Required is one [[required]] entry.
type Required struct {
	// Source is the source as written, with its ref; Ref is the ref.
	Source string
	Ref    string
	// Grant lists the grant names it pre-approves (capabilities, "hooks").
	Grant []string
	// Rule and File say where it is written.
	Rule, File string
}

func (l *Layer) loadRequired(rs []requiredRule) error {
	for i, r := range rs {
		rule := fmt.Sprintf("[[%srequired]] %d", l.prefix, i+1)
		src := strings.TrimSpace(r.Source)
		at := strings.LastIndexByte(src, '@')
		if src == "" {
			return fmt.Errorf("%s: source is empty: name the plugin's source with its ref, e.g. github.com/OWNER/fledge-plugin-x@v1.2.0", rule)
		}
		if at < 0 || at < strings.LastIndexByte(src, '/') || at == len(src)-1 {
			return fmt.Errorf("%s: source %q names no ref: pin it (%s@v1.2.0, or @<commit>), or every machine follows a moving branch", rule, src, src)
		}
		req := Required{Source: src, Ref: src[at+1:], Rule: rule, File: l.Where(), Grant: []string{}}
		for _, g := range r.Grant {
			name := strings.ToLower(strings.TrimSpace(g))
			if name != ItemHooks {
				if _, err := manifest.ParseCapability(name); err != nil {
					return fmt.Errorf("%s: grant: %w (or \"hooks\")", rule, err)
				}
			}
			req.Grant = append(req.Grant, name)
		}
		l.required = append(l.required, req)
	}
	return nil
}

// Required lists every layer's required plugins, system first; a source
// two layers require is listed once (the first), with the grants both
// pre-approve (layers only narrow).
func (s *Set) Required() []Required {
	var out []Required
	at := map[string]int{}
	for _, l := range s.Layers() {
		for _, r := range l.required {
			if i, ok := at[r.Source]; ok {
				var both []string
				for _, g := range out[i].Grant {
					for _, h := range r.Grant {
						if g == h {
							both = append(both, g)
						}
					}
				}
				out[i].Grant = append([]string{}, both...)
				continue
			}
			at[r.Source] = len(out)
			out = append(out, r)
		}
	}
	return out
}
