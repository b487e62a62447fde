package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQueryCheck(t *testing.T) {
	t.Parallel()
	good := []Query{{}, {Author: "CorvidLabs"}, {Author: "a-b1"}, {Topic: "ci"}, {Topic: "rust-cli"}, {Text: "deps audit"}}
	for _, q := range good {
		if err := q.Check(); err != nil {
			t.Errorf("%+v: %v", q, err)
		}
	}
	// Anything that could add a qualifier to GitHub's search syntax, or is
	// not a name GitHub allows, is refused with the field named.
	bad := []struct {
		q    Query
		want string
	}{
		{Query{Author: "alice topic:x"}, "author"},
		{Query{Author: "alice\x00"}, "author"},
		{Query{Author: "-alice"}, "author"},
		{Query{Author: "al--ice"}, "author"},
		{Query{Author: strings.Repeat("a", 40)}, "author"},
		{Query{Topic: "ci user:evil"}, "topic"},
		{Query{Topic: "a:b"}, "topic"},
		{Query{Topic: strings.Repeat("t", 51)}, "topic"},
		{Query{Text: strings.Repeat("x", MaxQueryLen+1)}, "query"},
	}
	for _, b := range bad {
		err := b.q.Check()
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: err = %v, want one naming %s", b.q, err, b.want)
		}
	}
}

func TestGitHubSearchAuthorAndTopic(t *testing.T) {
	t.Parallel()
	f, srv := newFakeGitHub(t)
	f.repos[1]["topics"] = []string{"fledge-plugin", "ci"}
	g := newTestGitHubClient(t, srv, "")
	res, err := g.Search(context.Background(), Query{Text: "deps", Author: "alice", Topic: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.last(t).URL.Query().Get("q"); got != "topic:fledge-plugin topic:ci user:alice deps" {
		t.Errorf("q = %q", got)
	}
	// The fake ignores user: and topic: qualifiers, as a misbehaving
	// server might: the client checks what comes back.
	if len(res.Entries) != 1 || res.Entries[0].Repo != "https://github.com/alice/fledge-plugin-deps" {
		t.Errorf("entries = %+v", res.Entries)
	}
	if _, err := g.Search(context.Background(), Query{Author: "x user:y"}); err == nil {
		t.Error("a hostile author reached GitHub")
	}
}

func TestIndexSearchAuthorAndTopic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	idx := `[
	 {"name":"fledge-plugin-a","repo":"https://github.com/CorvidLabs/fledge-plugin-a","topics":["fledge-plugin","ci"],"stars":3},
	 {"name":"fledge-plugin-b","repo":"https://github.com/alice/fledge-plugin-b.git","topics":["fledge-plugin"],"stars":2},
	 {"name":"fledge-plugin-c","repo":"git@github.com:Alice/fledge-plugin-c","topics":["CI"],"stars":1}
	]`
	p := filepath.Join(dir, "index.json")
	if err := os.WriteFile(p, []byte(idx), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := NewIndexClient(Options{RegistryURL: "file://" + filepath.ToSlash(p)})
	if err != nil {
		t.Fatal(err)
	}
	names := func(q Query) string {
		t.Helper()
		res, err := c.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range res.Entries {
			out = append(out, e.Name)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		q    Query
		want string
	}{
		{Query{}, "fledge-plugin-a,fledge-plugin-b,fledge-plugin-c"},
		{Query{Author: "alice"}, "fledge-plugin-b,fledge-plugin-c"},
		{Query{Topic: "ci"}, "fledge-plugin-a,fledge-plugin-c"},
		{Query{Author: "ALICE", Topic: "ci"}, "fledge-plugin-c"},
		{Query{Author: "bob"}, ""},
	} {
		if got := names(tc.q); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.q, got, tc.want)
		}
	}
}

func TestResultNarrow(t *testing.T) {
	t.Parallel()
	entries := func() []Entry {
		return []Entry{
			{Name: "a", Repo: "https://github.com/CorvidLabs/fledge-plugin-a"},
			{Name: "b", Repo: "https://github.com/team/fledge-plugin-b"},
			{Name: "c", Repo: "https://github.com/other/fledge-plugin-c"},
			{Name: "d", Repo: "https://github.com/CorvidLabs/fledge-plugin-d"},
			// The tier comes from the URL, never from the index's claim.
			{Name: "e", Repo: "https://example.com/CorvidLabs/fledge-plugin-e", ClaimedTier: "official"},
		}
	}
	trust := TrustConfig{Orgs: []string{"team"}}
	for _, tc := range []struct {
		tier       Tier
		limit      int
		want       string
		incomplete bool
	}{
		{"", 0, "a,b,c,d,e", false},
		{TierOfficial, 0, "a,d", false},
		{TierTeam, 0, "b", false},
		{TierUnverified, 0, "c,e", false},
		{"", 2, "a,b", true},
		{TierOfficial, 1, "a", true},
		{TierOfficial, 2, "a,d", false},
	} {
		r := &Result{Entries: entries()}
		r.Narrow(tc.tier, trust, tc.limit)
		var got []string
		for _, e := range r.Entries {
			got = append(got, e.Name)
		}
		if strings.Join(got, ",") != tc.want || r.Incomplete != tc.incomplete {
			t.Errorf("Narrow(%q, %d) = %v incomplete=%v, want %s incomplete=%v", tc.tier, tc.limit, got, r.Incomplete, tc.want, tc.incomplete)
		}
	}
}

func TestRepoOwnerName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ repo, owner, name string }{
		{"https://github.com/CorvidLabs/fledge-plugin-a", "CorvidLabs", "fledge-plugin-a"},
		{"https://github.com/CorvidLabs/fledge-plugin-a.git", "CorvidLabs", "fledge-plugin-a"},
		{"https://github.com/CorvidLabs/fledge-plugin-a/", "CorvidLabs", "fledge-plugin-a"},
		{"git@github.com:alice/x.git", "alice", "x"},
		{"ssh://git@host:22/group/sub/x", "sub", "x"},
		{"file:///tmp/gh/acme/fledge-plugin-gold", "acme", "fledge-plugin-gold"},
		{"https://host/x", "", "x"},
		{"https://host/", "", ""},
	} {
		o, n := RepoOwnerName(tc.repo)
		if o != tc.owner || n != tc.name {
			t.Errorf("RepoOwnerName(%q) = %q, %q; want %q, %q", tc.repo, o, n, tc.owner, tc.name)
		}
	}
	if got := WebURL("https://github.com/o/r.git"); got != "https://github.com/o/r" {
		t.Errorf("WebURL = %q", got)
	}
	if got := WebURL("git@github.com:o/r.git"); got != "git@github.com:o/r.git" {
		t.Errorf("WebURL of scp form = %q", got)
	}
}
