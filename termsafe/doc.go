// Package termsafe is the one sanitiser for text that reaches a terminal:
// manifest fields, registry descriptions, plugin log, progress and prompt
// text, errors. One classifier decides which characters cannot be shown as
// themselves: escape sequences (CSI, OSC, DCS and the rest, in their 7- and
// 8-bit forms), control characters, and the bidi and zero-width characters
// that make text read differently from what it is. Ordinary text, including
// non-ASCII letters and emoji, is never touched.
//
// It offers three treatments of those characters, chosen by what the text is:
//   - Escape (and EscapeText for messages) writes each one as a visible
//     escape, so nothing is hidden and nothing is lost: for text that matters
//     as it is (names, versions, sources, paths, commands, errors quoting
//     them). Unescape reverses Escape exactly.
//   - FirstUnsafe finds the first one, for refusing strings that will be
//     executed (hooks, build commands, binary paths): fledge shows those
//     byte-exact or refuses them.
//   - Text, Line and Styled remove them, for text meant to be rendered
//     (plugin output and log messages, build output), where an escape
//     sequence is presentation, not content.
//
// Text can also hide without an unsafe character: a long run of spaces or
// other blank characters, or of blank lines, scrolls what precedes it out
// of sight. FirstPadding finds such padding (Blank says which characters
// draw nothing), for executed strings, which must be seen whole.
//
// Truncate is the one way to shorten display text: to a width in terminal
// columns, between grapheme clusters (rivo/uniseg), so no character is
// split. It is independent of the three treatments: escape before or after
// as the text needs.
package termsafe
