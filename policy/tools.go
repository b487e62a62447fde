package policy

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Tool rules: which installed commands agents are offered as tools
// (fledge mcp, fledge plugins tools). [tools] allow and deny are lists of
// tool patterns; a tool is offered when every layer's allow list (where a
// layer has one) matches it and no layer's deny does. As with every rule,
// a later layer (config.toml's [policy]) only narrows an earlier one (the
// administrator's), and `fledge mcp --tools` narrows further still.

// CheckToolPattern reports whether p is a tool pattern: a tool's name or
// <plugin>.<command> (the plugin by its full or short name), in which *,
// ? and [...] are globs as path.Match reads them: "plugin.*" matches every
// command of a plugin.
func CheckToolPattern(p string) error {
	if strings.TrimSpace(p) == "" {
		return errors.New("an empty tool pattern")
	}
	if strings.TrimSpace(p) != p {
		return fmt.Errorf("tool pattern %q has spaces around it", p)
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("tool pattern %q is not a glob (%v): use *, ? and [...]", p, err)
	}
	return nil
}

// MatchTool reports whether pattern (valid for CheckToolPattern) matches
// one of a tool's names.
func MatchTool(pattern string, names []string) bool {
	for _, n := range names {
		if ok, _ := path.Match(pattern, n); ok {
			return true
		}
	}
	return false
}

func matchAny(patterns, names []string) bool {
	for _, p := range patterns {
		if MatchTool(p, names) {
			return true
		}
	}
	return false
}

// OffersTool reports whether agents may be offered the tool known by
// names (its name first), or returns the first rule that keeps it from
// them.
func (s *Set) OffersTool(names []string) *Denial {
	for _, l := range s.Layers() {
		if l.hasToolAllow && !matchAny(l.toolAllow, names) {
			list := "none"
			if len(l.toolAllow) > 0 {
				list = strings.Join(l.toolAllow, ", ")
			}
			return &Denial{Item: "tool", Rule: l.Rule("tools", "allow"), File: l.Where(),
				Reason: fmt.Sprintf("offers agents only the tools %s, not %s", list, names[0])}
		}
		for _, p := range l.toolDeny {
			if MatchTool(p, names) {
				return &Denial{Item: "tool", Rule: l.Rule("tools", "deny"), File: l.Where(),
					Reason: fmt.Sprintf("%q keeps tool %s from agents", p, names[0])}
			}
		}
	}
	return nil
}

// loadTools reads a layer's [tools] table.
func (l *Layer) loadTools(r *toolRules) error {
	if r == nil {
		return nil
	}
	if r.Allow != nil {
		l.hasToolAllow, l.toolAllow = true, []string{}
		for _, p := range *r.Allow {
			if err := CheckToolPattern(p); err != nil {
				return fmt.Errorf("%s: %w", l.Rule("tools", "allow"), err)
			}
			l.toolAllow = append(l.toolAllow, p)
		}
	}
	for _, p := range r.Deny {
		if err := CheckToolPattern(p); err != nil {
			return fmt.Errorf("%s: %w", l.Rule("tools", "deny"), err)
		}
		l.toolDeny = append(l.toolDeny, p)
	}
	return nil
}

// toolRules is a [tools] table as written.
type toolRules struct {
	Allow *[]string `toml:"allow"`
	Deny  []string  `toml:"deny"`
}
