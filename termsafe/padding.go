package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text can hide from a reader without a single unsafe character: a long
// run of spaces (or of other characters that draw nothing) wraps what
// follows it many rows down, so that a terminal shows a harmless tail
// while the head has scrolled out of sight; many blank lines do the same.
// FirstPadding finds such padding, for strings that will be executed,
// which must be seen whole.

// MaxBlankRun is the longest run of blank characters (see Blank) within a
// line that FirstPadding allows: more than indentation needs.
const MaxBlankRun = 16

// MaxBlankLines is the most blank lines in a row FirstPadding allows.
const MaxBlankLines = 2

// Blank reports whether r draws nothing though it is not unsafe: spaces
// and tabs, the other Unicode spaces (no-break, em, ideographic…), and the
// letters and marks that render empty (Hangul fillers, the Braille blank,
// Khmer inherent vowels).
func Blank(r rune) bool {
	switch r {
	case ' ', '\t', 0x115f, 0x1160, 0x3164, 0xffa0, 0x2800, 0x17b4, 0x17b5:
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// Padding is a run of blank characters, or of blank lines, long enough to
// push text out of sight.
type Padding struct {
	// Offset is the byte offset where the run starts (from 0).
	Offset int
	// Count is how many blank characters, or blank lines, it holds.
	Count int
	// Lines is set for a run of blank lines.
	Lines bool
	// Rune is the run's first character, for a run within a line.
	Rune rune
}

// String says what the padding is and where, counting bytes from 1:
// "a run of 6000 spaces at byte 13".
func (p *Padding) String() string {
	switch {
	case p.Lines:
		return fmt.Sprintf("%d blank lines in a row at byte %d", p.Count, p.Offset+1)
	case p.Rune == ' ':
		return fmt.Sprintf("a run of %d spaces at byte %d", p.Count, p.Offset+1)
	}
	return fmt.Sprintf("a run of %d blank characters (from %U) at byte %d", p.Count, p.Rune, p.Offset+1)
}

// FirstPadding returns the first run in s of more than MaxBlankRun blank
// characters within a line, or of more than MaxBlankLines blank lines, or
// nil when there is none.
func FirstPadding(s string) *Padding {
	run, runAt := 0, 0
	var first rune
	blankLines, linesAt := 0, 0
	lineStart, lineBlank := 0, true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			if lineBlank {
				if blankLines == 0 {
					linesAt = lineStart
				}
				blankLines++
				if blankLines > MaxBlankLines {
					return &Padding{Offset: linesAt, Count: countBlankLines(s[linesAt:]), Lines: true}
				}
			} else {
				blankLines = 0
			}
			run, lineStart, lineBlank = 0, i+size, true
		case Blank(r):
			if run == 0 {
				runAt, first = i, r
			}
			run++
			if run > MaxBlankRun {
				return &Padding{Offset: runAt, Count: countRun(s[runAt:]), Rune: first}
			}
		default:
			run, lineBlank = 0, false
		}
		i += size
	}
	return nil
}

// countRun counts the blank characters at the start of s.
func countRun(s string) int {
	n := 0
	for _, r := range s {
		if !Blank(r) {
			break
		}
		n++
	}
	return n
}

// countBlankLines counts the blank lines at the start of s.
func countBlankLines(s string) int {
	n := 0
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimFunc(line, Blank) != "" {
			return n
		}
		n, s = n+1, rest
	}
}
