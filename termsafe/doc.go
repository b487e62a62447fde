// Package termsafe is the one sanitiser for text that reaches a terminal:
// manifest fields, registry descriptions, plugin log, progress and prompt
// text, errors. It removes escape sequences (CSI, OSC, DCS and the rest, in
// their 7- and 8-bit forms), control characters, and the bidi and zero-width
// characters that make text read differently from what it is, while leaving
// ordinary text, including non-ASCII letters and emoji, readable.
package termsafe
