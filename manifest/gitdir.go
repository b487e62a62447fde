package manifest

import (
	"strings"
	"unicode/utf8"
)

// A command binary may not lie in a .git directory. fledge never hashes
// the plugin root's .git (verify compares the installed tree without it,
// and a clone's .git is removed before install), so a binary there could
// be swapped without verify noticing. Refusing such paths at validation,
// install and run keeps everything fledge runs inside what it hashes.
//
// A component counts as .git the way git itself guards the name (its
// protectNTFS and protectHFS checks): in any case, with trailing dots and
// spaces (which Windows drops), with the code points HFS+ ignores, and as
// the NTFS short name GIT~1.

// InGitDir reports whether any component of path (separated by '/' or
// '\') names a .git directory.
func InGitDir(path string) bool {
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' }) {
		if isGitName(part) {
			return true
		}
	}
	return false
}

func isGitName(part string) bool {
	if strings.EqualFold(part, "git~1") {
		return true
	}
	var b strings.Builder
	for len(part) > 0 {
		r, n := utf8.DecodeRuneInString(part)
		part = part[n:]
		if !hfsIgnorable(r) {
			b.WriteRune(r)
		}
	}
	return strings.EqualFold(strings.TrimRight(b.String(), ". "), ".git")
}

// hfsIgnorable reports the code points HFS+ drops when comparing names
// (the list git's utf8.c keeps for protectHFS).
func hfsIgnorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}
