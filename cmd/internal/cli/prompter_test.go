package cli

import (
	"strings"
	"testing"
)

func TestDarkBackground(t *testing.T) {
	for in, want := range map[string]bool{
		"":             true, // unknown: most terminals are dark
		"15;0":         true,
		"0;15":         false,
		"0;7":          false,
		"15;8":         true,
		"0;default;15": false,
		"junk":         true,
		"0;x":          true,
	} {
		if got := darkBackground(in); got != want {
			t.Errorf("darkBackground(%q) = %v, want %v", in, got, want)
		}
	}
}

// A multi-select's height counts its title and description lines, wrapped
// at the terminal's width, so that no option is hidden when it opens.
func TestTextLines(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int
		want  int
	}{
		{"", 80, 0},
		{"Grant x:", 80, 1},
		{"one\ntwo", 80, 2},
		{strings.Repeat("a", 100), 80, 2},
		{"界界界界界界界界界界", 20, 2}, // wide runes take two columns
	} {
		if got := textLines(c.text, c.width); got != c.want {
			t.Errorf("textLines(%d bytes, %d) = %d, want %d", len(c.text), c.width, got, c.want)
		}
	}
}
