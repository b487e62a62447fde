package termsafe

import (
	"strings"
	"testing"
)

func TestFirstPadding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string // "" for none
	}{
		{"make", ""},
		{"go build -o bin/x ./cmd/x", ""},
		{"set -e\n\tmake\n        make install\n\nrm -rf tmp\n", ""},
		{"a" + strings.Repeat(" ", MaxBlankRun) + "b", ""},
		{"a\n\n\nb", ""},
		{"touch /tmp/PWNED;" + strings.Repeat(" ", 6000) + "make", "a run of 6000 spaces at byte 18"},
		{"x" + strings.Repeat("\t", 40) + "y", "a run of 40 blank characters (from U+0009) at byte 2"},
		{"x" + strings.Repeat("\u3164", 30) + "y", "a run of 30 blank characters (from U+3164) at byte 2"},
		{"x" + strings.Repeat("\u00a0 ", 10) + "y", "a run of 20 blank characters (from U+00A0) at byte 2"},
		{"evil\n" + strings.Repeat("\n", 60) + "make", "60 blank lines in a row at byte 6"},
		{"evil\n" + strings.Repeat("   \n", 5) + "make", "5 blank lines in a row at byte 6"},
	} {
		p := FirstPadding(tc.in)
		got := ""
		if p != nil {
			got = p.String()
		}
		if got != tc.want {
			t.Errorf("FirstPadding(%.40q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
