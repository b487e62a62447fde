package gitdirty

import (
	"errors"
	"os"
	"strings"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// Ignore rules are matched here as git matches them (dir.c and
// wildmatch.c), not with go-git's plumbing/format/gitignore: its matcher
// reads "[!a]" as "'!' or 'a'", knows no POSIX classes, lets "foo/**"
// swallow foo itself (so "!foo/keep" cannot re-include), lets "!*/"
// re-include the files below every directory, and keeps a UTF-8 byte order
// mark as part of the first pattern. Each of those made Dirty disagree with
// git status (TestDirtyMatchesGit's ignore/* scenarios). The one Go library
// that ports wildmatch.c (github.com/git-pkgs/gitignore) is not on the
// module proxy this project builds from.

// maxIgnoreFile bounds one ignore file. git itself refuses ignore files
// over 100 MiB; real ones are a few KiB, and this one is read on every run.
const maxIgnoreFile = 4 << 20

// pattern is one ignore rule.
type pattern struct {
	pat       string // without its '!' and trailing '/'
	base      string // the directory of the file it came from, relative, no trailing '/'; "" for the root
	prefix    int    // length of pat's leading part with no glob character (git's nowildcardlen)
	negative  bool   // '!': re-include
	mustBeDir bool   // trailing '/': directories only
	noDir     bool   // no '/': matched against the last path component only
}

// readPatterns reads an ignore file (.gitignore, info/exclude or
// core.excludesFile) whose rules apply below base. A missing file has no
// rules.
func readPatterns(path, base string) ([]pattern, error) {
	data, err := bounded.ReadFile(path, maxIgnoreFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parsePatterns(string(data), base), nil
}

// parsePatterns splits an ignore file into rules as git's
// add_patterns_from_buffer does: a byte order mark is skipped, lines end
// at '\n' (a '\r' before it is dropped), '#' starts a comment, and
// trailing spaces go unless escaped.
func parsePatterns(data, base string) []pattern {
	data = strings.TrimPrefix(data, "\xef\xbb\xbf")
	var ps []pattern
	for len(data) > 0 {
		line, rest, _ := strings.Cut(data, "\n") // a last line without '\n' counts too
		data = rest
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		line = trimTrailingSpaces(line)
		if p, ok := parsePattern(line, base); ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// trimTrailingSpaces drops trailing spaces that no backslash escapes.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// parsePattern is git's parse_path_pattern.
func parsePattern(s, base string) (pattern, bool) {
	p := pattern{base: base}
	if strings.HasPrefix(s, "!") {
		p.negative = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.mustBeDir = true
		s = s[:len(s)-1]
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i] // C reads the pattern up to its NUL
	}
	if s == "" {
		return p, false
	}
	p.noDir = !strings.Contains(s, "/")
	p.pat = s
	p.prefix = len(s)
	if i := strings.IndexAny(s, `*?[\`); i >= 0 {
		p.prefix = i
	}
	return p, true
}

// match reports whether path (relative to the worktree, slash-separated)
// is ignored by ps, rules in ascending priority: the last rule that
// matches decides (git's last_matching_pattern).
func match(ps []pattern, path string, isDir, fold bool) bool {
	name := path[strings.LastIndexByte(path, '/')+1:]
	for i := len(ps) - 1; i >= 0; i-- {
		p := &ps[i]
		if p.mustBeDir && !isDir {
			continue
		}
		var m bool
		if p.noDir {
			m = wildmatch(p.pat, name, false, fold)
		} else {
			m = matchPathname(path, p, fold)
		}
		if m {
			return !p.negative
		}
	}
	return false
}

// matchPathname is git's match_pathname: the pattern is anchored at its
// file's directory, and its literal prefix is compared before the rest is
// wildmatched (which changes what a "**" right after the prefix means, so
// it is kept).
func matchPathname(path string, p *pattern, fold bool) bool {
	pat, prefix := p.pat, p.prefix
	if strings.HasPrefix(pat, "/") {
		pat, prefix = pat[1:], prefix-1
	}
	name := path
	if p.base != "" {
		if len(path) < len(p.base)+1 || path[len(p.base)] != '/' || !equalFold(path[:len(p.base)], p.base, fold) {
			return false
		}
		name = path[len(p.base)+1:]
	}
	if prefix > 0 {
		if prefix > len(name) || !equalFold(pat[:prefix], name[:prefix], fold) {
			return false
		}
		pat, name = pat[prefix:], name[prefix:]
		if pat == "" && name == "" {
			return true
		}
	}
	return wildmatch(pat, name, true, fold)
}

// equalFold compares as git's fspathncmp does: with core.ignoreCase, ASCII
// letters only (strings.EqualFold would also fold the Kelvin sign into k,
// and call any two invalid bytes equal).
func equalFold(a, b string, fold bool) bool {
	if !fold || len(a) != len(b) {
		return a == b
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i], true) != lower(b[i], true) {
			return false
		}
	}
	return true
}

// wildmatch results, as in git's wildmatch.c.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch matches text against a glob as git's wildmatch() does: * ? and
// [...] (with ! or ^ to negate, ranges, backslash escapes and the POSIX
// classes); with pathname set, * and ? and [...] never match '/', and **
// between slashes (or at either end) matches across them.
func wildmatch(pat, text string, pathname, fold bool) bool {
	return dowild(pat, 0, text, 0, pathname, fold) == wmMatch
}

func lower(c byte, fold bool) byte {
	if fold && 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

// at is s[i], or 0 past the end (C's NUL).
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// dowild is a transliteration of wildmatch.c's dowild, with indices for
// pointers and 0 for the NUL past the end.
func dowild(p string, pi int, text string, ti int, pathname, fold bool) int {
	start := pi // C's "pattern": where this call's pattern begins
	for ; pi < len(p); ti, pi = ti+1, pi+1 {
		pch := p[pi]
		tch := at(text, ti)
		if tch == 0 && pch != '*' {
			return wmAbortAll
		}
		tch = lower(tch, fold)
		pch = lower(pch, fold)
		switch pch {
		case '\\':
			// A literal match with the next character (not case-folded,
			// as in C); past the end, no match.
			pi++
			if pi >= len(p) || p[pi] != tch {
				return wmNoMatch
			}
		default:
			if tch != pch {
				return wmNoMatch
			}
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
		case '*':
			// Runs of * collapse. Without pathname, * matches '/' too and
			// ** is nothing more; with it, ** alone between slashes (or at
			// either end) matches across them, and any other ** is a *.
			matchSlash := !pathname
			pi++
			if at(p, pi) == '*' {
				prev := pi - 2
				for pi++; at(p, pi) == '*'; pi++ {
				}
				if pathname {
					if (prev < start || p[prev] == '/') &&
						(pi >= len(p) || p[pi] == '/' || (p[pi] == '\\' && at(p, pi+1) == '/')) {
						// "**/" after a slash (or at the start) also matches
						// nothing at all: foo/**/bar matches foo/bar.
						if at(p, pi) == '/' && dowild(p, pi+1, text, ti, pathname, fold) == wmMatch {
							return wmMatch
						}
						matchSlash = true
					} else {
						matchSlash = false
					}
				}
			}
			if pi >= len(p) {
				// A trailing ** matches everything; a trailing * only what
				// has no more slashes.
				if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				// One * before a slash matches up to the next slash.
				slash := strings.IndexByte(text[ti:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				ti += slash
				// The slash is consumed by the loop.
				continue
			}
			for {
				if tch == 0 {
					break
				}
				// Skip ahead to the next place the literal after the *
				// can match (not past a slash unless ** allows it).
				if !isGlobSpecial(p[pi]) {
					want := lower(p[pi], fold)
					for {
						tch = lower(at(text, ti), fold)
						if tch == 0 || (!matchSlash && tch == '/') || tch == want {
							break
						}
						ti++
					}
					if tch != want {
						if matchSlash {
							return wmAbortAll
						}
						return wmAbortToStarStar
					}
				}
				if m := dowild(p, pi, text, ti, pathname, fold); m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tch == '/' {
					return wmAbortToStarStar
				}
				ti++
				tch = lower(at(text, ti), fold)
			}
			return wmAbortAll
		case '[':
			pi++
			pch = at(p, pi)
			if pch == '^' {
				pch = '!'
			}
			negated := pch == '!'
			if negated {
				pi++
				pch = at(p, pi)
			}
			var prev byte
			matched := false
			for {
				if pi >= len(p) {
					return wmAbortAll
				}
				switch {
				case pch == '\\':
					pi++
					if pi >= len(p) {
						return wmAbortAll
					}
					pch = p[pi]
					if tch == pch {
						matched = true
					}
				case pch == '-' && prev != 0 && pi+1 < len(p) && p[pi+1] != ']':
					pi++
					pch = p[pi]
					if pch == '\\' {
						pi++
						if pi >= len(p) {
							return wmAbortAll
						}
						pch = p[pi]
					}
					if tch <= pch && tch >= prev {
						matched = true
					} else if fold && 'a' <= tch && tch <= 'z' {
						if up := tch - 'a' + 'A'; up <= pch && up >= prev {
							matched = true
						}
					}
					pch = 0 // so that prev becomes 0
				case pch == '[' && at(p, pi+1) == ':':
					s := pi + 2
					end := strings.IndexByte(p[s:], ']')
					if end < 0 {
						return wmAbortAll
					}
					end += s
					if end-s-1 < 0 || p[end-1] != ':' {
						// No ":]": a plain '['.
						pch = '['
						if tch == pch {
							matched = true
						}
						break
					}
					m, ok := posixClass(p[s:end-1], tch, fold)
					if !ok {
						return wmAbortAll // a malformed [:class:]
					}
					if m {
						matched = true
					}
					pi = end
					pch = 0
				default:
					if tch == pch {
						matched = true
					}
				}
				prev = pch
				pi++
				pch = at(p, pi)
				if pch == ']' {
					break
				}
			}
			if matched == negated || (pathname && tch == '/') {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// posixClass matches c against [:name:]; ok is false for an unknown name.
// Like git (its sane_ctype), only ASCII counts, and space is " \t\n\r".
func posixClass(name string, c byte, fold bool) (m, ok bool) {
	isUpper := 'A' <= c && c <= 'Z'
	isLower := 'a' <= c && c <= 'z'
	isDigit := '0' <= c && c <= '9'
	isAlpha := isUpper || isLower
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return 0x21 <= c && c <= 0x7e, true
	case "lower":
		return isLower || (fold && isUpper), true
	case "print":
		return 0x20 <= c && c <= 0x7e, true
	case "punct":
		return 0x21 <= c && c <= 0x7e && !isAlpha && !isDigit, true
	case "space":
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return isUpper || (fold && isLower), true
	case "xdigit":
		return isDigit || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F'), true
	}
	return false, false
}
