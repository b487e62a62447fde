package gitdirty

import "testing"

// globMatch is git's wildmatch in pathname mode, as includeIf gitdir and
// onbranch conditions use it (after includeIf's own rewriting: a leading
// **/ for relative patterns, a trailing ** after a slash).
func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		fold      bool
		want      bool
	}{
		{"/home/u/work/**", "/home/u/work/proj/.git", false, true},
		{"/home/u/work/**", "/home/u/play/proj/.git", false, false},
		{"**/work/**", "/srv/work/a/.git", false, true},
		{"**/proj/.git", "/a/b/proj/.git", false, true},
		{"**/proj/.git", "/a/b/xproj/.git", false, false},
		{"/home/*/.git", "/home/u/.git", false, true},
		{"/home/*/.git", "/home/u/v/.git", false, false}, // * stays in one component
		{"/home/?/.git", "/home/u/.git", false, true},
		{"/home/?/.git", "/home/uu/.git", false, false},
		{"/Home/U/**", "/home/u/x/.git", false, false},
		{"/Home/U/**", "/home/u/x/.git", true, true},
		{"feature/**", "feature/a/b", false, true},
		{"main", "main", false, true},
		{"main", "maintenance", false, false},
		{"/a.b/**", "/axb/c", false, false}, // regexp metacharacters are literal
		{"/päth/**", "/päth/x", false, true},
		{"/home/[uv]/**", "/home/v/x/.git", false, true},
		{"/home/[!uv]/**", "/home/v/x/.git", false, false},
	} {
		if got := globMatch(tc.pat, tc.name, tc.fold); got != tc.want {
			t.Errorf("globMatch(%q, %q, fold=%v) = %v, want %v", tc.pat, tc.name, tc.fold, got, tc.want)
		}
	}
}

func TestValidPath(t *testing.T) {
	for p, want := range map[string]bool{
		"a":           true,
		"a/b.txt":     true,
		".gitignore":  true,
		"":            false,
		"/etc/passwd": false,
		"../x":        false,
		"a/../../x":   false,
		"a/./b":       false,
		"a//b":        false,
		".git/config": false,
		"a/.GIT/x":    false,
		"a\x00b":      false,
	} {
		if got := validPath(p); got != want {
			t.Errorf("validPath(%q) = %v, want %v", p, got, want)
		}
	}
}
