package gitdirty

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// These tests hold ignore.go to git itself: every expectation is either
// checked against a real git process when the test runs, or (where git
// cannot be asked: an empty name, a name with "//" or a trailing slash)
// taken from git's own t/t3070-wildmatch.sh.

func igRequireGit(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git CLI not installed: these tests compare with git itself")
	}
}

// igGit runs git in dir with no system, user or XDG config, and no GIT_*
// variable from the caller's environment.
func igGit(dir, home string, stdin []byte, args ...string) ([]byte, error) {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") ||
			strings.HasPrefix(kv, "XDG_CONFIG_HOME=") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && strings.Contains(strings.Join(args, " "), "check-ignore") {
		err = nil // check-ignore: "no path is ignored"
	}
	if err != nil {
		return out.Bytes(), fmt.Errorf("git %q: %v\n%s", args, err, errb.String())
	}
	return out.Bytes(), nil
}

// igInit makes an empty repository (no template, so no info/exclude) and
// returns its root and a home directory for git.
func igInit(tb testing.TB) (root, home string) {
	tb.Helper()
	base := tb.TempDir()
	home = filepath.Join(base, "home")
	root = filepath.Join(base, "repo")
	if err := os.Mkdir(home, 0o755); err != nil {
		tb.Fatal(err)
	}
	if _, err := igGit(base, home, nil, "init", "-q", "--template=", root); err != nil {
		tb.Fatal(err)
	}
	return root, home
}

// igCheckIgnore asks git check-ignore, in one process, whether each path is
// ignored. A path is ignored when the pattern git reports is not a
// negation; git reports the pattern that excludes a leading directory
// when there is one.
func igCheckIgnore(root, home string, fold bool, paths []string) ([]bool, error) {
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	ic := "core.ignorecase=false"
	if fold {
		ic = "core.ignorecase=true"
	}
	out, err := igGit(root, home, in.Bytes(), "-c", ic, "check-ignore", "--no-index", "--stdin", "-z", "-v", "-n")
	if err != nil {
		return nil, err
	}
	f := strings.Split(string(out), "\x00")
	if len(f) != 4*len(paths)+1 || f[len(f)-1] != "" {
		return nil, fmt.Errorf("check-ignore: %d fields for %d paths: %q", len(f), len(paths), out)
	}
	res := make([]bool, len(paths))
	for i, p := range paths {
		pat, name := f[4*i+2], f[4*i+3]
		if name != p {
			return nil, fmt.Errorf("check-ignore answered for %q, asked about %q", name, p)
		}
		res[i] = pat != "" && pat[0] != '!'
	}
	return res, nil
}

// igWalkIgnored is how Dirty's walk decides about path: it never descends
// into an ignored directory, and picks up each directory's .gitignore on
// the way down (git check-ignore reports a path below an ignored
// directory as ignored too).
func igWalkIgnored(root, path string, isDir, fold bool) (bool, error) {
	read := func(dir string) ([]pattern, error) {
		p := filepath.Join(root, filepath.FromSlash(dir), ".gitignore")
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			return nil, nil
		}
		return readPatterns(p, dir)
	}
	ps, err := read("")
	if err != nil {
		return false, err
	}
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		if match(ps, dir, true, fold) {
			return true, nil
		}
		more, err := read(dir)
		if err != nil {
			return false, err
		}
		ps = append(ps[:len(ps):len(ps)], more...)
	}
	return match(ps, path, isDir, fold), nil
}

// wildmatch modes, in t3070's column order.
var igModes = []struct {
	name           string
	pathname, fold bool
	lsFlags        []string // git ls-files options that make pathspecs match this way
}{
	{"wildmatch", true, false, []string{"--glob-pathspecs"}},
	{"iwildmatch", true, true, []string{"--glob-pathspecs", "--icase-pathspecs"}},
	{"pathmatch", false, false, nil},
	{"ipathmatch", false, true, []string{"--icase-pathspecs"}},
}

// igWildCases are wildmatch(pattern, text) results, want being four
// digits in t3070's column order: WM_PATHNAME; WM_PATHNAME|WM_CASEFOLD;
// no flags; WM_CASEFOLD. The first part is t/t3070-wildmatch.sh's table
// (its test-tool columns); the rest are more cases, their answers taken
// from git.
var igWildCases = []struct{ want, text, pat string }{
	// Basic wildmatch features
	{"1111", "foo", "foo"},
	{"0000", "foo", "bar"},
	{"1111", "", ""},
	{"1111", "foo", "???"},
	{"0000", "foo", "??"},
	{"1111", "foo", "*"},
	{"1111", "foo", "f*"},
	{"0000", "foo", "*f"},
	{"1111", "foo", "*foo*"},
	{"1111", "foobar", "*ob*a*r*"},
	{"1111", "aaaaaaabababab", "*ab"},
	{"1111", "foo*", `foo\*`},
	{"0000", "foobar", `foo\*bar`},
	{"1111", `f\oo`, `f\\oo`},
	{"1111", "ball", "*[al]?"},
	{"0000", "ten", "[ten]"},
	{"1111", "ten", "**[!te]"},
	{"0000", "ten", "**[!ten]"},
	{"1111", "ten", "t[a-g]n"},
	{"0000", "ten", "t[!a-g]n"},
	{"1111", "ton", "t[!a-g]n"},
	{"1111", "ton", "t[^a-g]n"},
	{"1111", "a]b", "a[]]b"},
	{"1111", "a-b", "a[]-]b"},
	{"1111", "a]b", "a[]-]b"},
	{"0000", "aab", "a[]-]b"},
	{"1111", "aab", "a[]a-]b"},
	{"1111", "]", "]"},
	// Extended slash-matching features
	{"0011", "foo/baz/bar", "foo*bar"},
	{"0011", "foo/baz/bar", "foo**bar"},
	{"1111", "foobazbar", "foo**bar"},
	{"1111", "foo/baz/bar", "foo/**/bar"},
	{"1100", "foo/baz/bar", "foo/**/**/bar"},
	{"1111", "foo/b/a/z/bar", "foo/**/bar"},
	{"1111", "foo/b/a/z/bar", "foo/**/**/bar"},
	{"1100", "foo/bar", "foo/**/bar"},
	{"1100", "foo/bar", "foo/**/**/bar"},
	{"0011", "foo/bar", "foo?bar"},
	{"0011", "foo/bar", "foo[/]bar"},
	{"0011", "foo/bar", "foo[^a-z]bar"},
	{"0011", "foo/bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r"},
	{"1111", "foo-bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r"},
	{"1100", "foo", "**/foo"},
	{"1111", "XXX/foo", "**/foo"},
	{"1111", "bar/baz/foo", "**/foo"},
	{"0011", "bar/baz/foo", "*/foo"},
	{"0011", "foo/bar/baz", "**/bar*"},
	{"1111", "deep/foo/bar/baz", "**/bar/*"},
	{"0011", "deep/foo/bar/baz/", "**/bar/*"},
	{"1111", "deep/foo/bar/baz/", "**/bar/**"},
	{"0000", "deep/foo/bar", "**/bar/*"},
	{"1111", "deep/foo/bar/", "**/bar/**"},
	{"0011", "foo/bar/baz", "**/bar**"},
	{"1111", "foo/bar/baz/x", "*/bar/**"},
	{"0011", "deep/foo/bar/baz/x", "*/bar/**"},
	{"1111", "deep/foo/bar/baz/x", "**/bar/*/*"},
	// Various additional tests
	{"0000", "acrt", "a[c-c]st"},
	{"1111", "acrt", "a[c-c]rt"},
	{"0000", "]", "[!]-]"},
	{"1111", "a", "[!]-]"},
	{"0000", "", `\`},
	{"0000", `\`, `\`}, // git ls-files matches it: the pathspec equals the name
	{"0000", `XXX/\`, `*/\`},
	{"1111", `XXX/\`, `*/\\`},
	{"1111", "foo", "foo"},
	{"1111", "@foo", "@foo"},
	{"0000", "foo", "@foo"},
	{"1111", "[ab]", `\[ab]`},
	{"1111", "[ab]", "[[]ab]"},
	{"1111", "[ab]", "[[:]ab]"},
	{"0000", "[ab]", "[[::]ab]"},
	{"1111", "[ab]", "[[:digit]ab]"},
	{"1111", "[ab]", `[\[:]ab]`},
	{"1111", "?a?b", `\??\?b`},
	{"1111", "abc", `\a\b\c`},
	{"0000", "foo", ""},
	{"1111", "foo/bar/baz/to", "**/t[o]"},
	// Character class tests
	{"1111", "a1B", "[[:alpha:]][[:digit:]][[:upper:]]"},
	{"0101", "a", "[[:digit:][:upper:][:space:]]"},
	{"1111", "A", "[[:digit:][:upper:][:space:]]"},
	{"1111", "1", "[[:digit:][:upper:][:space:]]"},
	{"0000", "1", "[[:digit:][:upper:][:spaci:]]"},
	{"1111", " ", "[[:digit:][:upper:][:space:]]"},
	{"0000", ".", "[[:digit:][:upper:][:space:]]"},
	{"1111", ".", "[[:digit:][:punct:][:space:]]"},
	{"1111", "5", "[[:xdigit:]]"},
	{"1111", "f", "[[:xdigit:]]"},
	{"1111", "D", "[[:xdigit:]]"},
	{"1111", "_", "[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:]]"},
	{"1111", ".", "[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]"},
	{"1111", "5", "[a-c[:digit:]x-z]"},
	{"1111", "b", "[a-c[:digit:]x-z]"},
	{"1111", "y", "[a-c[:digit:]x-z]"},
	{"0000", "q", "[a-c[:digit:]x-z]"},
	// Additional tests, including some malformed wildmatch patterns
	{"1111", "]", `[\\-^]`},
	{"0000", "[", `[\\-^]`},
	{"1111", "-", `[\-_]`},
	{"1111", "]", `[\]]`},
	{"0000", `\]`, `[\]]`},
	{"0000", `\`, `[\]]`},
	{"0000", "ab", "a[]b"},
	{"0000", "a[]b", "a[]b"},
	{"0000", "ab[", "ab["},
	{"0000", "ab", "[!"},
	{"0000", "ab", "[-"},
	{"1111", "-", "[-]"},
	{"0000", "-", "[a-"},
	{"0000", "-", "[!a-"},
	{"1111", "-", "[--A]"},
	{"1111", "5", "[--A]"},
	{"1111", " ", "[ --]"},
	{"1111", "$", "[ --]"},
	{"1111", "-", "[ --]"},
	{"0000", "0", "[ --]"},
	{"1111", "-", "[---]"},
	{"1111", "-", "[------]"},
	{"0000", "j", "[a-e-n]"},
	{"1111", "-", "[a-e-n]"},
	{"1111", "a", "[!------]"},
	{"0000", "[", "[]-a]"},
	{"1111", "^", "[]-a]"},
	{"0000", "^", "[!]-a]"},
	{"1111", "[", "[!]-a]"},
	{"1111", "^", "[a^bc]"},
	{"1111", "-b]", "[a-]b]"},
	{"0000", `\`, `[\]`},
	{"1111", `\`, `[\\]`},
	{"0000", `\`, `[!\\]`},
	{"1111", "G", `[A-\\]`},
	{"0000", "aaabbb", "b*a"},
	{"0000", "aabcaa", "*ba*"},
	{"1111", ",", "[,]"},
	{"1111", ",", `[\\,]`},
	{"1111", `\`, `[\\,]`},
	{"1111", "-", "[,-.]"},
	{"0000", "+", "[,-.]"},
	{"0000", "-.]", "[,-.]"},
	{"1111", "2", `[\1-\3]`},
	{"1111", "3", `[\1-\3]`},
	{"0000", "4", `[\1-\3]`},
	{"1111", `\`, `[[-\]]`},
	{"1111", "[", `[[-\]]`},
	{"1111", "]", `[[-\]]`},
	{"0000", "-", `[[-\]]`},
	// Test recursion
	{"1111", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*"},
	{"0000", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*"},
	{"0000", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*"},
	{"1111", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*"},
	{"0000", "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*"},
	{"1111", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", "**/*a*b*g*n*t"},
	{"0000", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", "**/*a*b*g*n*t"},
	{"0000", "foo", "*/*/*"},
	{"0000", "foo/bar", "*/*/*"},
	{"1111", "foo/bba/arr", "*/*/*"},
	{"0011", "foo/bb/aa/rr", "*/*/*"},
	{"1111", "foo/bb/aa/rr", "**/**/**"},
	{"1111", "abcXdefXghi", "*X*i"},
	{"0011", "ab/cXd/efXg/hi", "*X*i"},
	{"1111", "ab/cXd/efXg/hi", "*/*X*/*/*i"},
	{"1111", "ab/cXd/efXg/hi", "**/*X*/**/*i"},
	// Extra pathmatch tests
	{"0000", "foo", "fo"},
	{"1111", "foo/bar", "foo/bar"},
	{"1111", "foo/bar", "foo/*"},
	{"0011", "foo/bba/arr", "foo/*"},
	{"1111", "foo/bba/arr", "foo/**"},
	{"0011", "foo/bba/arr", "foo*"},
	{"0011", "foo/bba/arr", "foo**"},
	{"0011", "foo/bba/arr", "foo/*arr"},
	{"0011", "foo/bba/arr", "foo/**arr"},
	{"0000", "foo/bba/arr", "foo/*z"},
	{"0000", "foo/bba/arr", "foo/**z"},
	{"0011", "foo/bar", "foo?bar"},
	{"0011", "foo/bar", "foo[/]bar"},
	{"0011", "foo/bar", "foo[^a-z]bar"},
	{"0011", "ab/cXd/efXg/hi", "*Xg*i"},
	// Extra case-sensitivity tests
	{"0101", "a", "[A-Z]"},
	{"1111", "A", "[A-Z]"},
	{"0101", "A", "[a-z]"},
	{"1111", "a", "[a-z]"},
	{"0101", "a", "[[:upper:]]"},
	{"1111", "A", "[[:upper:]]"},
	{"0101", "A", "[[:lower:]]"},
	{"1111", "a", "[[:lower:]]"},
	{"0101", "A", "[B-Za]"},
	{"1111", "a", "[B-Za]"},
	{"0101", "A", "[B-a]"},
	{"1111", "a", "[B-a]"},
	{"0101", "z", "[Z-y]"},
	{"1111", "Z", "[Z-y]"},

	// More, not from t3070; git's answers.
	{"1111", "ab", "a**b"},
	{"1111", "axxb", "a**b"},
	{"0011", "ax/yb", "a**b"},
	{"1111", "a/b/c", "***"},
	{"1111", "abc", "***"},
	{"1111", "a/b/c", "a/***"},
	{"1100", "a/b", "a/***/b"},
	{"1111", "a/x/y/b", "a/***/b"},
	{"1111", "ax/b", "a**/b"}, // "**" not between slashes is "*"
	{"0011", "x/ab", "**b"},
	{"1111", "-", "[a-]"},
	{"1111", "a", "[a-]"},
	{"0000", "b", "[a-]"},
	{"1111", "b", "[a-c]"},
	{"0101", "B", "[a-c]"},
	{"0000", "d", "[a-c]"},
	{"1111", "b", "[!a]"},
	{"0000", "a", "[!a]"},
	{"0000", "a", "[^a]"},
	{"1111", "]", "[]a]"},
	{"1111", "a", "[]a]"},
	{"1111", "]", `[\]]`},
	{"0000", "a", "[[:alpha:]"},
	{"0000", "[", "[[:alpha:]"},
	{"0000", "a", "[[:foo:]]"},
	{"0000", "[", "[[:foo:]]"},
	{"0000", "a]", "[[:foo:]]"},
	{"1111", "a", "[[:alpha:]]"},
	{"0000", "1", "[[:alpha:]]"},
	{"1111", "7", "[[:digit:][:upper:]]"},
	{"1111", "Q", "[[:digit:][:upper:]]"},
	{"0101", "q", "[[:digit:][:upper:]]"},
	{"0000", "a", "[[:ALPHA:]]"},
	{"1111", "*", `\*`},
	{"0000", "a", `\*`},
	{"0000", "a", `a\`},
	{"0000", `a\`, `a\`},
	{"1111", "a", `\a`},
	{"0101", "A", `\a`},
	{"1010", "A", `\A`}, // casefold: an escaped capital matches nothing
	{"0000", "a", `\A`},
	{"1010", "A", "[A]"}, // casefold: a capital in brackets matches nothing
	{"0000", "a", "[A]"},
	{"1111", "a", "[a]"},
	{"0101", "A", "[a]"},
	{"0101", "aBc", "*b*"},
	{"0101", "ABC", "a*C"},
	{"1111", "\xe9", "[\x80-\xff]"},
	{"0000", "\xc3\xa9", "?"},
	{"1111", "\xc3\xa9", "??"},
	{"1111", "a/b", "a/b"},
	{"0011", "a/b", "a?b"},
	{"0011", "a/b", "a[!x]b"},
	{"0011", "a/b/c", "a*c"},
	{"1111", "a/b/c", "a/*/c"},
	{"0000", "a/b/c", "a/*/*/c"},
	{"1111", "a/.b", "a/*b"},
	{"1111", ".a", "*"},
	{"1111", ".a", "?a"},
	{"1111", "a/b", "*/b"},
	{"1111", "x/a/b", "**/a/b"},
	{"1100", "a/b", "**/a/b"},
	{"1111", "a/b/c", "**/c"},
	{"0000", "a/b/c", "**/b"},
	{"0000", "a/b", `a/**\/b`},
}

// igLsFilesPattern is pat as a pathspec that git matches exactly as
// wildmatch(pat, ...) below a literal dir/ prefix. git compares a
// pathspec's leading literal part by itself and wildmatches only the
// rest, which changes what a ** right after it means ("foo**/x"), so the
// first character is made a wildcard in a way that matches the same.
func igLsFilesPattern(pat string, fold bool) string {
	if pat == "" || isGlobSpecial(pat[0]) {
		return pat
	}
	c := pat[0]
	if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' {
		if fold {
			c = lower(c, true)
		}
		return "[" + string(c) + "]" + pat[1:]
	}
	return `\` + pat
}

// igCreatable: git can be shown a file by this name.
func igCreatable(name string) bool {
	if name == "" || strings.HasSuffix(name, "/") || strings.HasPrefix(name, "/") {
		return false
	}
	for _, c := range strings.Split(name, "/") {
		if c == "" || c == "." || c == ".." || c == ".git" || c == ".gitignore" {
			return false
		}
	}
	return true
}

func igWrite(tb testing.TB, root, rel, content string) {
	tb.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestWildmatch checks wildmatch against the table, and the table against
// git: every case whose text can be a file name is put in a repository,
// and git ls-files is asked, for each of the four modes, which files its
// pattern matches as a pathspec (git_fnmatch calls wildmatch with
// WM_PATHNAME for --glob-pathspecs and WM_CASEFOLD for
// --icase-pathspecs). A failure says which of the two disagrees.
func TestWildmatch(t *testing.T) {
	t.Parallel()
	for _, tc := range igWildCases {
		for m, mode := range igModes {
			want := tc.want[m] == '1'
			if got := wildmatch(tc.pat, tc.text, mode.pathname, mode.fold); got != want {
				t.Errorf("%s: wildmatch(%q, %q) = %v, git says %v", mode.name, tc.pat, tc.text, got, want)
			}
		}
	}

	igRequireGit(t)
	root, home := igInit(t)
	var dirs []int
	for i, tc := range igWildCases {
		if igCreatable(tc.text) && tc.pat != "" {
			igWrite(t, root, fmt.Sprintf("c%d/%s", i, tc.text), "")
			dirs = append(dirs, i)
		}
	}
	if _, err := igGit(root, home, nil, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases, %d of them also asked of git ls-files in %d modes", len(igWildCases), len(dirs), len(igModes))
	for m, mode := range igModes {
		args := append(mode.lsFlags[:len(mode.lsFlags):len(mode.lsFlags)], "ls-files", "-z", "--")
		for _, i := range dirs {
			args = append(args, fmt.Sprintf("c%d/%s", i, igLsFilesPattern(igWildCases[i].pat, mode.fold)))
		}
		out, err := igGit(root, home, nil, args...)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, name := range strings.Split(string(out), "\x00") {
			listed[name] = true
		}
		for _, i := range dirs {
			tc := igWildCases[i]
			want := tc.want[m] == '1'
			// A pathspec that is the name itself (or a leading directory of
			// it) matches without wildmatch.
			lit := igLsFilesPattern(tc.pat, mode.fold)
			eq := func(a, b string) bool { return a == b || mode.fold && strings.EqualFold(a, b) }
			if eq(lit, tc.text) || len(tc.text) > len(lit) && eq(lit, tc.text[:len(lit)]) && tc.text[len(lit)] == '/' {
				want = true
			}
			if got := listed[fmt.Sprintf("c%d/%s", i, tc.text)]; got != want {
				t.Errorf("%s: git ls-files says pattern %q matches %q: %v; the table says %v", mode.name, tc.pat, tc.text, got, want)
			}
		}
	}
}

// igScenario is a worktree's .gitignore files and the paths to ask about.
type igScenario struct {
	name  string
	folds []bool            // core.ignoreCase values to check with; nil is just false
	files map[string]string // .gitignore files (any path), by slash path
	paths []string          // a trailing '/' makes a directory
}

func igScenarios() []igScenario {
	sc := []igScenario{
		{name: "negation", files: map[string]string{".gitignore": "*.log\n!keep.log\n"},
			paths: []string{"a.log", "keep.log", "sub/keep.log", "sub/b.log", "x.txt", "sub/"}},
		{name: "negation-first-loses", files: map[string]string{".gitignore": "!keep.log\n*.log\n"},
			paths: []string{"keep.log", "a.txt"}},
		{name: "no-reinclude-below-ignored-dir", files: map[string]string{".gitignore": "build/\n!build/keep.txt\n!keep\n"},
			paths: []string{"build/keep.txt", "build/x", "other/build/keep.txt", "other/keep", "keep"}},
		{name: "dir-star-then-negation", files: map[string]string{".gitignore": "d/*\n!d/keep\n"},
			paths: []string{"d/keep", "d/x", "d/sub/y", "e/d/x", "d/keep2/z"}},
		{name: "double-star-suffix", files: map[string]string{".gitignore": "foo/**\n!foo/keep\n"},
			paths: []string{"foo/keep", "foo/x", "foo/keep2", "foo/sub/keep", "bar/foo/x", "foo/keepdir/", "foo/keepdir2/y"}},
		{name: "double-star-suffix-dir", files: map[string]string{".gitignore": "foo/**\n!foo/keep/\n"},
			paths: []string{"foo/keep/a", "foo/keep/", "foo/x"}},
		{name: "anchored", files: map[string]string{".gitignore": "/out\n/lib/*.a\n"},
			paths: []string{"out", "sub/out", "lib/x.a", "sub/lib/x.a", "lib/sub/y.a", "outx"}},
		{name: "middle-slash", files: map[string]string{".gitignore": "doc/*.txt\na/b\n"},
			paths: []string{"doc/x.txt", "x/doc/y.txt", "doc/sub/z.txt", "a/b", "x/a/b", "a/bc"}},
		{name: "dir-only", files: map[string]string{".gitignore": "tmp/\n*.d/\n/top/\n"},
			paths: []string{"tmp/", "x/tmp", "y/tmp/", "a.d/", "b.d", "top/", "s/top/", "tmp2"}},
		{name: "double-star-forms", files: map[string]string{".gitignore": "**/cache\n**/logs/*.log\na/**/z\nm/**\nfoo**/bar\n"},
			paths: []string{"cache", "x/cache", "x/y/cache/", "logs/a.log", "p/logs/b.log", "p/logs/q/c.log", "a/z", "a/b/z", "a/b/c/z", "b/a/z",
				"m/", "m/x", "mm/x", "foo/bar", "foox/bar", "foo/x/bar", "fooy/z/bar", "xfoo/bar"}},
		{name: "nested", files: map[string]string{
			".gitignore":            "*.o\n",
			"sub/.gitignore":        "/only-here\n!keep.o\nlocal/\n*.tmp\n",
			"sub/deeper/.gitignore": "!*.tmp\n",
			"other/.gitignore":      "*.c\n",
			"other/deep/.gitignore": "",
		}, paths: []string{"a.o", "sub/keep.o", "sub/x.o", "sub/only-here", "only-here", "sub/deeper/only-here", "sub/local/", "local/",
			"sub/a.tmp", "sub/deeper/b.tmp", "c.tmp", "other/x.c", "x.c", "sub/x.c", "other/deep/y.c"}},
		{name: "nested-slash-patterns", files: map[string]string{"sub/.gitignore": "a/b\n**/c\n/d/**\ne/\n"},
			paths: []string{"sub/a/b", "a/b", "sub/x/a/b", "sub/c", "sub/x/y/c", "c", "sub/d/e", "d/e", "sub/d/", "sub/e/", "sub/x/e/", "e/"}},
		{name: "nested-negates-ancestor", files: map[string]string{".gitignore": "*.tmp\nlogs/\n", "a/.gitignore": "!*.tmp\n!logs/\n"},
			paths: []string{"a/x.tmp", "x.tmp", "a/logs/", "a/logs/y", "logs/", "b/logs/", "a/b/logs/", "a/b/c.tmp"}},
		{name: "nested-self-ignoring", files: map[string]string{"c/.gitignore": "*\n", "k/.gitignore": "*\n!.gitignore\n"},
			paths: []string{"c/x", "c/.gitignore", "c/", "k/.gitignore", "k/y", "x"}},
		{name: "nested-under-ignored-dir-unread", files: map[string]string{".gitignore": "a/\n", "a/.gitignore": "!x\n"},
			paths: []string{"a/x", "a/y", "b/x"}},
		{name: "whitelist", files: map[string]string{".gitignore": "*\n!*/\n!*.go\n"},
			paths: []string{"a", "a.go", "d/", "d/b", "d/b.go", "d/e/", "d/e/f", "d/e/f.go"}},
		{name: "whitelist-anchored", files: map[string]string{".gitignore": "/*\n!/keep/\n"},
			paths: []string{"a", "keep/", "keep/x", "other/x", "other/"}},
		{name: "star-star-alone", files: map[string]string{".gitignore": "**\n!x\n"},
			paths: []string{"a", "x", "d/x", "d/"}},
		{name: "all-dirs", files: map[string]string{".gitignore": "*/\n"},
			paths: []string{"a", "d/", "d/b", "e/f/"}},
		{name: "dir-pattern-vs-file", files: map[string]string{".gitignore": "a/\nb/**/\n"},
			paths: []string{"a", "x/a/", "b/c/", "b/c/d", "b/e", "b/"}},
		{name: "degenerate-lines", files: map[string]string{".gitignore": "!\n/\n//\n!/\n\\\nx\n"},
			paths: []string{"x", "y", "d/", "!", "\\"}},
		{name: "trailing-backslash", files: map[string]string{".gitignore": "foo\\\nbar\n"},
			paths: []string{"foo", "foo\\", "bar"}},
		{name: "literal-star", files: map[string]string{".gitignore": "\\*\n\\?x\n"},
			paths: []string{"*", "a", "?x", "ax"}},
		{name: "trailing-spaces", files: map[string]string{".gitignore": "a \nb\\ \nc\\  \nd\t\ne\\\\ \nf \\ \n"},
			paths: []string{"a", "a ", "b", "b ", "c", "c ", "c  ", "d", "d\t", "e\\", "e\\ ", "f", "f  ", "f \\"}},
		{name: "escapes", files: map[string]string{".gitignore": "\\#hash\n#comment\n\\!bang\n\\ lead\n #space\n"},
			paths: []string{"#hash", "hash", "#comment", "comment", "!bang", "bang", " lead", "lead", " #space"}},
		{name: "escaped-bang-negation", files: map[string]string{".gitignore": "\\!*\n!\\!keep\n"},
			paths: []string{"!a", "!keep", "keep"}},
		{name: "crlf", files: map[string]string{".gitignore": "*.o\r\nbuild/\r\n!keep.o\r\nsp \r\na\rb\r\n\r\n#c\r\n"},
			paths: []string{"a.o", "keep.o", "build/", "sp", "sp ", "a\rb", "ab", "#c", "\r"}},
		{name: "bom", files: map[string]string{".gitignore": "\ufeff*.o\n\ufeffsecond\n", "c/.gitignore": "\ufeff#c\nd\n"},
			paths: []string{"a.o", "second", "\ufeffsecond", "c/#c", "c/d", "c/\ufeff#c"}},
		{name: "no-final-newline", files: map[string]string{".gitignore": "*.o\nlast"},
			paths: []string{"a.o", "last", "lastx"}},
		{name: "classes", files: map[string]string{".gitignore": "[[:digit:]]*\n*[[:space:]]\n[!a-c]?\n[^x]y\nq[[:alpha:]\nr[[:foo:]]\n"},
			paths: []string{"1a", "a1", "a ", "dz", "az", "xy", "zy", "qa", "q[", "ra", "r[", "r]"}},
		{name: "literal-prefix", files: map[string]string{".gitignore": "/ab*\n/cd[e]\n/abcdef/x\n/gh/**\n"},
			paths: []string{"ab", "abc", "x/ab", "cd", "cde", "abcdef/x", "abd/x", "gh/", "gh/i", "g/h"}},
		{name: "casefold", folds: []bool{false, true}, files: map[string]string{
			".gitignore":     "*.LOG\nBuild/\n/Out\nDoc/*.TXT\n\\Aesc\n[A]br\n[a-c]r\n[[:upper:]]u\n",
			"Sub/.gitignore": "/X\n!x.log\n",
		}, paths: []string{"x.log", "X.Log", "build/", "BUILD/", "out", "OUT", "doc/a.txt", "DOC/B.txt", "Aesc", "aesc",
			"Abr", "abr", "Br", "br", "xu", "Xu", "Sub/x", "Sub/X", "Sub/x.log", "Sub/X.LOG"}},
		{name: "casefold-beyond-ascii", folds: []bool{false, true}, files: map[string]string{
			".gitignore": "/k\u212a\n/\xff\nd/\u017fs\n\u212a\n",
		}, paths: []string{"\u212ak", "kk", "\xfe", "\xff", "d/s\u017f", "d/ss", "k", "K"}},
	}
	// Each t3070 case again, as a rule in a .gitignore of its own
	// directory: a pattern with no slash is wildmatched without
	// WM_PATHNAME against the last component; any other against the path
	// below that directory, after comparing its literal prefix.
	wm := igScenario{name: "t3070-as-gitignore", folds: []bool{false, true}, files: map[string]string{}}
	for i, tc := range igWildCases {
		if !igCreatable(tc.text) || tc.pat == "" || strings.ContainsAny(tc.pat[:1], "#!") || strings.HasSuffix(tc.pat, " ") {
			continue
		}
		dir := fmt.Sprintf("w%d", i)
		wm.files[dir+"/.gitignore"] = tc.pat + "\n"
		wm.paths = append(wm.paths, dir+"/"+tc.text)
	}
	sc = append(sc, wm)
	// Every byte against every POSIX class, and its negation.
	cl := igScenario{name: "posix-classes", folds: []bool{false, true}, files: map[string]string{}}
	for _, class := range []string{"alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit"} {
		for _, neg := range []string{"", "!"} {
			dir := "k" + neg + class
			cl.files[dir+"/.gitignore"] = "[" + neg + "[:" + class + ":]]z\n"
			for i := 1; i < 0x84; i++ {
				b := i
				if i >= 0x80 {
					b = []int{0xa0, 0xc3, 0xe9, 0xff}[i-0x80] // a few bytes past ASCII
				}
				if b != '/' {
					cl.paths = append(cl.paths, dir+"/"+string([]byte{byte(b), 'z'}))
				}
			}
		}
	}
	sc = append(sc, cl)
	return sc
}

// TestIgnoreMatchesGit builds each scenario's worktree and compares the
// walk's answer (match, directory by directory) with git check-ignore's
// for every path.
func TestIgnoreMatchesGit(t *testing.T) {
	igRequireGit(t)
	t.Parallel()
	for _, sc := range igScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			root, home := igInit(t)
			kinds := map[string]bool{} // path: is a directory
			for rel, content := range sc.files {
				igWrite(t, root, rel, content)
				kinds[rel] = false
			}
			var paths []string
			var isDir []bool
			for _, p := range sc.paths {
				dir := strings.HasSuffix(p, "/")
				p = strings.TrimSuffix(p, "/")
				if k, ok := kinds[p]; ok && k != dir {
					t.Fatalf("%q is both a file and a directory", p)
				}
				parts := strings.Split(p, "/")
				for i := 1; i < len(parts); i++ {
					if k, ok := kinds[strings.Join(parts[:i], "/")]; ok && !k {
						t.Fatalf("%q is below a file", p)
					}
					kinds[strings.Join(parts[:i], "/")] = true
				}
				kinds[p] = dir
				if dir {
					if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(p)), 0o755); err != nil {
						t.Fatal(err)
					}
				} else if _, ok := sc.files[p]; !ok {
					igWrite(t, root, p, "")
				}
				paths = append(paths, p)
				isDir = append(isDir, dir)
			}
			folds := sc.folds
			if folds == nil {
				folds = []bool{false}
			}
			for _, fold := range folds {
				gits, err := igCheckIgnore(root, home, fold, paths)
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for i, p := range paths {
					got, err := igWalkIgnored(root, p, isDir[i], fold)
					if err != nil {
						t.Fatal(err)
					}
					if got != gits[i] {
						t.Errorf("fold=%v: %q (dir %v): ignored = %v, git check-ignore says %v\n.gitignore files: %s",
							fold, p, isDir[i], got, gits[i], igRules(sc.files, p))
					}
					if gits[i] {
						n++
					}
				}
				t.Logf("fold=%v: %d paths, git ignores %d", fold, len(paths), n)
				// An oracle that always says the same proves nothing.
				if n == 0 || n == len(paths) {
					t.Errorf("fold=%v: git ignores %d of %d paths: the scenario tests nothing", fold, n, len(paths))
				}
			}
		})
	}
}

// igRules shows the .gitignore files that bear on path.
func igRules(files map[string]string, path string) string {
	var keys []string
	for k := range files {
		dir := strings.TrimSuffix(strings.TrimSuffix(k, ".gitignore"), "/")
		if dir == "" || strings.HasPrefix(path, dir+"/") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %q ", k, files[k])
	}
	return b.String()
}

// The fuzzer's alphabets: bytes outside them are mapped into them, so
// mutations mostly make characters that mean something to wildmatch.
const (
	igFuzzPat  = "ab*?[]!^-\\:./ A#"
	igFuzzPath = "ab*?[]!^-\\:. A"
	igFuzzMax  = 12
)

func igFuzzMap(in []byte, alphabet string, keepPrintable bool) string {
	if len(in) > igFuzzMax {
		in = in[:igFuzzMax]
	}
	out := make([]byte, len(in))
	for i, c := range in {
		switch {
		case keepPrintable && ' ' <= c && c <= '~', strings.IndexByte(alphabet, c) >= 0:
			out[i] = c
		default:
			out[i] = alphabet[int(c)%len(alphabet)]
		}
	}
	return string(out)
}

// FuzzIgnore compares the walk's answer with git check-ignore for one
// rule (in the root .gitignore, or nested in the path's first directory)
// and one path (a directory if it ends in '/').
func FuzzIgnore(f *testing.F) {
	igRequireGit(f)
	root, home := igInit(f)
	for _, s := range [][2]string{
		{"*", "a"}, {"a/**", "a/b"}, {"**/a", "b/a"}, {"a/**/b", "a/b"}, {"a**b", "ab/b"}, {"***", "a/b"},
		{"[!a]", "b"}, {"[^a]", "a"}, {"[]a]", "]"}, {"[a-]", "-"}, {`[\]]`, "]"}, {"[[:alpha:]]", "a"},
		{"[[:digit:][:upper:]]", "A"}, {"[[:foo:]]", "a"}, {"[[:alpha:]", "a"}, {`\!a`, "!a"}, {"!a", "a"},
		{"a/", "a/"}, {"/a", "b/a"}, {"a\\ ", "a "}, {"a ", "a"}, {"#a", "#a"}, {`\#a`, "#a"}, {"*/", "a/b"},
		{"a*/b", "ab/b"}, {"a**/b", "ax/b"}, {"*.[!o]", "a.c"}, {":a", "a"}, {"[a-b-]", "-"}, {"a?b", "a/b"},
		{"A", "a"}, {`\A`, "A"}, {"[A]", "A"}, {"**/", "a/b/"}, {"/*/", "a/"}, {"a/*/", "a/b/"},
	} {
		f.Add([]byte(s[0]), []byte(s[1]), false, false)
		f.Add([]byte(s[0]), []byte(s[1]), true, true)
	}
	f.Fuzz(func(t *testing.T, patIn, pathIn []byte, fold, nested bool) {
		pat := igFuzzMap(patIn, igFuzzPat, true)
		path := igFuzzMap(pathIn, igFuzzPath+"/", true)
		isDir := strings.HasSuffix(path, "/")
		// Make a name git can be asked about: no empty, "." or ".."
		// component, and no leading ':' (it starts pathspec magic).
		var parts []string
		for _, c := range strings.Split(path, "/") {
			if c != "" && c != "." && c != ".." {
				parts = append(parts, c)
			}
		}
		path = strings.TrimLeft(strings.Join(parts, "/"), ":")
		if !igCreatable(path) {
			return
		}
		ignoreAt := ".gitignore"
		if i := strings.IndexByte(path, '/'); nested && i >= 0 {
			ignoreAt = path[:i] + "/.gitignore"
		}
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != ".git" {
				if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
		if isDir {
			if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(path)), 0o755); err != nil {
				t.Fatal(err)
			}
		} else {
			igWrite(t, root, path, "")
		}
		igWrite(t, root, ignoreAt, pat+"\n")
		gits, err := igCheckIgnore(root, home, fold, []string{path})
		if err != nil {
			t.Fatal(err)
		}
		got, err := igWalkIgnored(root, path, isDir, fold)
		if err != nil {
			t.Fatal(err)
		}
		if got != gits[0] {
			t.Fatalf("rule %q in %s, path %q (dir %v, ignoreCase %v): ignored = %v, git check-ignore says %v",
				pat, ignoreAt, path, isDir, fold, got, gits[0])
		}
	})
}
