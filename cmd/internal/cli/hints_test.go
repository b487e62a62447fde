package cli_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// runhint [-n N] [-after TEXT] FILE: find the first line of FILE (stdout or
// stderr of the last command) holding TEXT ("hint: " unless told), take the
// Nth fledge command in it (1 unless told), and run it as printed, through
// sh's quoting rules, with its output becoming stdout and stderr. With !,
// the command must fail. The scripts hints_*.txtar produce each hint fledge
// can print this way and check that it does what it says.
func cmdRunHint(ts *testscript.TestScript, neg bool, args []string) {
	n, after := 1, "hint: "
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-n":
			v, err := strconv.Atoi(args[1])
			if err != nil || v < 1 {
				ts.Fatalf("runhint: bad -n %q", args[1])
			}
			n = v
		case "-after":
			after = args[1]
		default:
			ts.Fatalf("usage: runhint [-n N] [-after TEXT] FILE")
		}
		args = args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: runhint [-n N] [-after TEXT] FILE")
	}
	text := ts.ReadFile(args[0])
	var line string
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, after); i >= 0 {
			line = l[i+len(after):]
			break
		}
	}
	if line == "" {
		ts.Fatalf("runhint: no line with %q in %s:\n%s", after, args[0], text)
	}
	cmds := hintCommands(line)
	if len(cmds) < n {
		ts.Fatalf("runhint: %q holds %d fledge command(s), want #%d", line, len(cmds), n)
	}
	words, err := shellWords(cmds[n-1])
	if err != nil {
		ts.Fatalf("runhint: %q: %v", cmds[n-1], err)
	}
	ts.Logf("running the hint: %s", cmds[n-1])
	err = ts.Exec(words[0], words[1:]...)
	if err != nil && !neg {
		ts.Fatalf("the hint %q failed: %v\nstderr:\n%s", cmds[n-1], err, ts.ReadFile("stderr"))
	}
	if err == nil && neg {
		ts.Fatalf("the hint %q succeeded, want a failure", cmds[n-1])
	}
}

// hintCommands lists the fledge commands a hint holds: each starts with
// "fledge " after ": " (or at the start) and runs to "; " or the end.
func hintCommands(hint string) []string {
	var out []string
	for _, part := range splitUnquoted(hint, "; ") {
		i := strings.Index(part, ": fledge ")
		switch {
		case strings.HasPrefix(part, "fledge "):
			out = append(out, part)
		case i >= 0:
			out = append(out, part[i+2:])
		}
	}
	return out
}

// splitUnquoted splits s at sep outside single quotes.
func splitUnquoted(s, sep string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\'':
			quoted = !quoted
		case !quoted && strings.HasPrefix(s[i:], sep):
			out = append(out, s[start:i])
			start = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(out, s[start:])
}

// shellWords splits a command line as sh does for words that are plain or
// single-quoted (all fledge's hints use).
func shellWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quoted, escaped := false, false, false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case !quoted && r == '\\':
			escaped, in = true, true
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, in = true, true
		case r == ' ':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		case strings.ContainsRune("\"$`|&;<>()*?[]{}~#", r):
			return nil, strconv.ErrSyntax // a hint is never anything but plain words
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quoted || escaped {
		return nil, strconv.ErrSyntax
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

func TestHintCommandParsing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		hint string
		want [][]string
	}{
		{"see what is installed: fledge plugins list", [][]string{{"fledge", "plugins", "list"}}},
		{"to reinstall it: fledge plugins install 'a b@^1.2' --force --grant exec,hooks; to see or change its grants: fledge plugins info x",
			[][]string{{"fledge", "plugins", "install", "a b@^1.2", "--force", "--grant", "exec,hooks"}, {"fledge", "plugins", "info", "x"}}},
		{"it's quoted: fledge plugins install 'it'\\''s; here'", [][]string{{"fledge", "plugins", "install", "it's; here"}}},
		{"upgrade fledge to run this plugin", nil},
	}
	for _, tc := range cases {
		var got [][]string
		for _, c := range hintCommands(tc.hint) {
			w, err := shellWords(c)
			if err != nil {
				t.Errorf("%q: %v", c, err)
			}
			got = append(got, w)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("hint %q: commands %q, want %q", tc.hint, got, tc.want)
		}
	}
}
