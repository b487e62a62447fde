package termsafe

import "github.com/rivo/uniseg"

// Truncate shortens s to at most n columns on a terminal, marking a cut
// with "…" (one of the n): for a table cell, or for quoting a long value in
// a message. It cuts between grapheme clusters, so no character is split
// (no stray \xc3 on screen) and a letter keeps its accents; a wide
// character (CJK, most emoji) takes two columns. A cluster counts at least
// one column and the kept text is at most 4n bytes, so a hostile value
// (control characters, a thousand combining marks on one letter) is cut
// short too. It cleans nothing: escape what it returns as for s.
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	cut, cols, end := 0, 0, 0 // cut: the end of what fits beside the "…"
	rest, state := s, -1
	for rest != "" {
		var cluster string
		var width int
		cluster, rest, width, state = uniseg.FirstGraphemeClusterInString(rest, state)
		cols += max(width, 1)
		end += len(cluster)
		if cols > n || end > 4*n {
			return s[:cut] + "…"
		}
		if cols <= n-1 && end <= 4*(n-1) {
			cut = end
		}
	}
	return s
}

// Width is how many columns s takes on a terminal, counted as Truncate
// counts them (a wide character two, any cluster at least one), so that
// columns padded by Width line up with cells cut by Truncate.
func Width(s string) int {
	cols, state := 0, -1
	for s != "" {
		var width int
		_, s, width, state = uniseg.FirstGraphemeClusterInString(s, state)
		cols += max(width, 1)
	}
	return cols
}
