package registry

import (
	"os"
	"strings"
	"testing"
	"time"
)

const realIndex = "testdata/registry-plugins.json"

func readRealIndex(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(realIndex)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDecodeRealIndex(t *testing.T) {
	t.Parallel()
	entries, err := DecodeIndex(readRealIndex(t), "file:///idx.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 41 {
		t.Fatalf("decoded %d entries, want 41", len(entries))
	}
	e := entries[0]
	want := Entry{
		Name: "fledge-plugin-standup", Slug: "standup", Version: "0.3.3", Language: "rust",
		ClaimedTier: "official", ClaimedInstall: "fledge plugins install CorvidLabs/fledge-plugin-standup",
		Repo: "https://github.com/CorvidLabs/fledge-plugin-standup", Stars: 2, DefaultBranch: "main",
	}
	if e.Name != want.Name || e.Slug != want.Slug || e.Version != want.Version || e.Language != want.Language ||
		e.ClaimedTier != want.ClaimedTier || e.ClaimedInstall != want.ClaimedInstall || e.Repo != want.Repo ||
		e.Stars != want.Stars || e.DefaultBranch != want.DefaultBranch {
		t.Errorf("first entry = %+v, want %+v", e, want)
	}
	if !strings.HasPrefix(e.Description, "Markdown standup post") {
		t.Errorf("description = %q", e.Description)
	}
	if got := e.UpdatedAt; !got.Equal(time.Date(2026, 5, 7, 16, 42, 21, 0, time.UTC)) {
		t.Errorf("updated_at = %v", got)
	}
	if len(e.Topics) != 1 || e.Topics[0] != "fledge-plugin" {
		t.Errorf("topics = %q", e.Topics)
	}
	for _, e := range entries {
		if e.Topics == nil {
			t.Errorf("%s: nil topics", e.Name)
		}
	}
}

func TestDecodeIndexErrors(t *testing.T) {
	t.Parallel()
	const ok = `{"name":"fledge-plugin-a","repo":"https://github.com/o/fledge-plugin-a"}`
	tests := []struct {
		name, doc, want string
	}{
		{"empty", ``, "registry index at SRC: empty document; want a JSON array of plugins"},
		{"object", `{"plugins":[]}`, "want a JSON array of plugins, got an object"},
		{"string", `"x"`, "got a string"},
		{"syntax", `[` + ok + `,]`, "invalid JSON at byte"},
		{"trailing", `[` + ok + `] x`, "invalid JSON"},
		{"entry not object", `[` + ok + `, 3]`, "entry 2: want a JSON object, got a number"},
		{"missing name", `[{"repo":"https://h/o/r"}]`, "entry 1: missing name"},
		{"blank name", `[{"name":"  ","repo":"https://h/o/r"}]`, "entry 1: missing name"},
		{"missing repo", `[` + ok + `,` + ok + `,{"name":"fledge-plugin-x"}]`, `entry 3 ("fledge-plugin-x"): missing repo`},
		{"stars type", `[{"name":"n","repo":"https://h/o/r","stars":"many"}]`, `entry 1 ("n"): stars: want a number, got string`},
		{"topics type", `[{"name":"n","repo":"https://h/o/r","topics":"a"}]`, `topics: want an array, got string`},
		{"name type", `[{"name":7,"repo":"https://h/o/r"}]`, `entry 1: name: want a string, got number`},
		{"negative stars", `[{"name":"n","repo":"https://h/o/r","stars":-1}]`, `stars: -1 is negative`},
		{"bad date", `[{"name":"n","repo":"https://h/o/r","updated_at":"yesterday"}]`, `updated_at: "yesterday" is not an RFC 3339 time`},
		{"repo scheme", `[{"name":"n","repo":"javascript:alert(1)"}]`, `repo: scheme "javascript" is not a git transport`},
		{"repo option", `[{"name":"n","repo":"--upload-pack=touch /tmp/x"}]`, `repo: "--upload-pack=touch /tmp/x" starts with '-'`},
		{"repo relative", `[{"name":"n","repo":"owner/repo"}]`, `repo: "owner/repo" is not a URL`},
		{"repo credentials", `[{"name":"n","repo":"https://u:p@h/o/r"}]`, `repo: carries credentials`},
		{"repo control", `[{"name":"n","repo":"https://h/o/r\u001b[2J"}]`, `repo: contains a space, control or non-ASCII character`},
		{"repo bidi", `[{"name":"n","repo":"https://github.com/evil/\u202egnp.x"}]`, `non-ASCII`},
		{"repo no path", `[{"name":"n","repo":"https://github.com/"}]`, `names no repository`},
		{"huge description", `[{"name":"n","repo":"https://h/o/r","description":"` + strings.Repeat("a", maxDescLen+1) + `"}]`, `description: 65537 bytes, more than the 65536 allowed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeIndex([]byte(tt.doc), "SRC")
			if err == nil {
				t.Fatalf("DecodeIndex(%.60q) succeeded, want error containing %q", tt.doc, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "registry index at SRC: ") {
				t.Errorf("error = %q does not name the index", err)
			}
		})
	}
}

func TestDecodeIndexBounds(t *testing.T) {
	t.Parallel()
	big := make([]byte, MaxIndexSize+1)
	if _, err := DecodeIndex(big, "SRC"); err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Errorf("oversized index: err = %v", err)
	}
	many := "[" + strings.TrimSuffix(strings.Repeat(`{"name":"n","repo":"https://h/o/r"},`, MaxEntries+1), ",") + "]"
	if _, err := DecodeIndex([]byte(many), "SRC"); err == nil || !strings.Contains(err.Error(), "entries, more than") {
		t.Errorf("too many entries: err = %v", err)
	}
}

func TestDecodeIndexTolerates(t *testing.T) {
	t.Parallel()
	doc := `[{"name":"fledge-plugin-a","repo":"git@example.com:o/a.git","future_field":{"x":1},"topics":null,"updated_at":""},
	{"name":"b","repo":"ssh://git@example.com/o/b"},{"name":"c","repo":"file:///srv/git/c"}]`
	entries, err := DecodeIndex([]byte(doc), "SRC")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || entries[0].Topics == nil || !entries[0].UpdatedAt.IsZero() {
		t.Errorf("entries = %+v", entries)
	}
}

func TestCheckRepoURL(t *testing.T) {
	t.Parallel()
	good := []string{
		"https://github.com/CorvidLabs/fledge-plugin-x", "http://127.0.0.1:8080/o/r.git", "ssh://git@host/o/r",
		"git://host/o/r", "file:///tmp/o/r", "git@github.com:o/r.git",
	}
	for _, u := range good {
		if err := CheckRepoURL(u); err != nil {
			t.Errorf("CheckRepoURL(%q) = %v, want nil", u, err)
		}
	}
	bad := []string{"", "-x", "o/r", "ftp://h/o/r", "https:///o/r", "git@:x", "git@host", "https://h/o r",
		"ext::sh -c touch% /tmp/pwned", "https://h", "data:text/plain,x", "https://u@h/o/r"}
	for _, u := range bad {
		if err := CheckRepoURL(u); err == nil {
			t.Errorf("CheckRepoURL(%q) = nil, want error", u)
		}
	}
}

func TestSearchAndLookupIn(t *testing.T) {
	t.Parallel()
	entries, err := DecodeIndex(readRealIndex(t), "SRC")
	if err != nil {
		t.Fatal(err)
	}
	names := func(es []Entry) string {
		var s []string
		for _, e := range es {
			s = append(s, e.Name)
		}
		return strings.Join(s, " ")
	}
	tests := []struct {
		query, want string
	}{
		{"hello", "fledge-plugin-hello fledge-plugin-hello-rust fledge-plugin-hello-swift"},
		{"HELLO rust", "fledge-plugin-hello-rust"},
		{"gh CLI", "fledge-plugin-github"},
		{"no-such-thing", ""},
	}
	for _, tt := range tests {
		if got := names(searchIn(entries, tt.query)); got != tt.want {
			t.Errorf("searchIn(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
	all := searchIn(entries, "")
	if len(all) != 41 {
		t.Fatalf("empty query found %d, want all 41", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Stars < all[i].Stars {
			t.Fatalf("empty query not sorted by stars: %s (%d) before %s (%d)", all[i-1].Name, all[i-1].Stars, all[i].Name, all[i].Stars)
		}
	}
	// Exact matches rank first even with fewer stars.
	ranked := searchIn(entries, "canary")
	if len(ranked) != 2 || ranked[0].Name != "fledge-plugin-canary" {
		t.Errorf("searchIn(canary) = %q", names(ranked))
	}

	for _, q := range []string{"hello", "fledge-plugin-hello", "HELLO", "Fledge-Plugin-Hello"} {
		if got := names(lookupIn(entries, q)); got != "fledge-plugin-hello" {
			t.Errorf("lookupIn(%q) = %q", q, got)
		}
	}
	if got := lookupIn(entries, "hell"); len(got) != 0 {
		t.Errorf("lookupIn(hell) = %q, want no candidates", names(got))
	}
	if got := lookupIn(entries, ""); len(got) != 0 || got == nil {
		t.Errorf("lookupIn(\"\") = %#v, want empty non-nil", got)
	}
}

func TestLookupAmbiguous(t *testing.T) {
	t.Parallel()
	doc := `[{"name":"fledge-plugin-deps","slug":"deps","repo":"https://github.com/alice/fledge-plugin-deps","stars":1},
	{"name":"deps","repo":"https://github.com/bob/deps","stars":9},
	{"name":"fledge-plugin-deps","slug":"deps","repo":"https://github.com/CorvidLabs/fledge-plugin-deps","stars":5},
	{"name":"fledge-plugin-depsx","slug":"depsx","repo":"https://github.com/carol/fledge-plugin-depsx"}]`
	entries, err := DecodeIndex([]byte(doc), "SRC")
	if err != nil {
		t.Fatal(err)
	}
	got := lookupIn(entries, "deps")
	var repos []string
	for _, e := range got {
		repos = append(repos, e.Repo)
	}
	want := "https://github.com/bob/deps https://github.com/CorvidLabs/fledge-plugin-deps https://github.com/alice/fledge-plugin-deps"
	if strings.Join(repos, " ") != want {
		t.Errorf("lookupIn(deps) = %v\nwant %s", repos, want)
	}
}

func TestInstallSource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		repo, base, want string
	}{
		{"https://github.com/CorvidLabs/fledge-plugin-x", "", "CorvidLabs/fledge-plugin-x"},
		{"https://github.com/CorvidLabs/fledge-plugin-x.git", "https://github.com/", "CorvidLabs/fledge-plugin-x"},
		{"https://GitHub.com/o/r/", "https://github.com", "o/r"},
		{"https://github.com/o/r/tree/main", "", "https://github.com/o/r/tree/main"},
		{"https://gitlab.com/o/r", "", "https://gitlab.com/o/r"},
		{"file:///srv/o/r", "file:///srv", "o/r"},
	}
	for _, tt := range tests {
		if got := InstallSource(Entry{Repo: tt.repo}, tt.base); got != tt.want {
			t.Errorf("InstallSource(%q, %q) = %q, want %q", tt.repo, tt.base, got, tt.want)
		}
	}
}
