package gitstate

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// readConfig reads, from one git config file, what the one-process path
// needs (the remotes and the url.<base>.insteadOf rewrites), in the order
// go-git's config decoder gave them (remotes by the first appearance of
// their subsection, each with its first url): it is that decoder's answer
// on every file it takes (FuzzReadConfig), without linking the decoder,
// whose gcfg brings in encoding/gob, the costliest package initialisation
// of every fledge process (0.11-0.23 ms by GODEBUG=inittrace=1).
//
// It takes the config files git and `git config` write, in UTF-8 without
// control characters but tabs: section headers alone on their line,
// `[section]` or `[section "subsection"]`, and `key = value` lines; the
// values it keeps hold no quote, backslash, '#' or ';', and the others
// (an alias's quoting and comments) are skipped unread, but for one that
// may continue on the next line. Anything else (a kept value with quoting,
// escapes or an inline comment, a continued line, a key without a value,
// the deprecated [section.subsection]) reports false, and Open inspects
// the repository in full, asking git.
func readConfig(data []byte) (remotes []remote, insteadOf [][2]string, ok bool) {
	type sub struct {
		name   string
		values []string
	}
	// The subsections of [remote] (their url values) and [url] (their
	// insteadof values), in first appearance.
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, nil, false
	}
	var remoteSubs, urlSubs []*sub
	find := func(list *[]*sub, name string) *sub {
		for _, s := range *list {
			if s.name == name {
				return s
			}
		}
		s := &sub{name: name}
		*list = append(*list, s)
		return s
	}
	var cur *sub     // the subsection whose key we keep, or nil
	key := ""        // the key kept in cur
	section := false // a header came: a key before one is no config
	for line := range bytes.Lines(data) {
		l := strings.Trim(string(line), " \t\r\n")
		if strings.ContainsFunc(l, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			return nil, nil, false // a control character: how git reads it is not this reader's
		}
		switch {
		case l == "" || l[0] == '#' || l[0] == ';':
			continue
		case l[0] == '[':
			name, subsection, ok := configHeader(l)
			if !ok {
				return nil, nil, false
			}
			cur, section = nil, true
			switch {
			case strings.EqualFold(name, "remote") && subsection != nil:
				cur, key = find(&remoteSubs, *subsection), "url"
			case strings.EqualFold(name, "url") && subsection != nil:
				cur, key = find(&urlSubs, *subsection), "insteadof"
			}
		default:
			name, value, ok := strings.Cut(l, "=")
			if !ok || !section {
				return nil, nil, false
			}
			name, value = strings.TrimRight(name, " \t"), strings.TrimLeft(value, " \t")
			switch {
			case !configName(name):
				return nil, nil, false
			case cur != nil && strings.EqualFold(name, key):
				if strings.ContainsAny(value, "\"\\#;") {
					return nil, nil, false
				}
				cur.values = append(cur.values, value)
			case strings.HasSuffix(value, `\`):
				// The next line may continue this value: what is a
				// header there is not certain.
				return nil, nil, false
			}
		}
	}
	for _, s := range remoteSubs {
		if len(s.values) > 0 && !hasRemote(remotes, s.name) {
			remotes = append(remotes, remote{s.name, s.values[0]})
		}
	}
	for _, s := range urlSubs {
		for _, v := range s.values {
			insteadOf = append(insteadOf, [2]string{v, s.name})
		}
	}
	return remotes, insteadOf, true
}

// configHeader reads a section header line: `[name]`, or `[name "sub"]`
// with a subsection, not empty, holding no quote or backslash; nothing may
// follow it.
func configHeader(l string) (section string, subsection *string, ok bool) {
	inner, ok := strings.CutPrefix(l, "[")
	if inner, ok = strings.CutSuffix(inner, "]"); !ok {
		return "", nil, false
	}
	name, rest, spaced := strings.Cut(inner, " ")
	if !configName(name) {
		return "", nil, false
	}
	if !spaced {
		return name, nil, true
	}
	q, opened := strings.CutPrefix(rest, `"`)
	q, closed := strings.CutSuffix(q, `"`)
	if !opened || !closed || q == "" || strings.ContainsAny(q, "\"\\") {
		return "", nil, false
	}
	return name, &q, true
}

// configName reports whether s is a section or key name as git writes
// one: a letter, then letters, digits and '-' (a '.' in a section's would
// be the deprecated subsection syntax).
func configName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case ('0' <= c && c <= '9' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}
