package registry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/corvidlabs/fledge-go/gitfetch"
)

// tagRepo is a git repository on disk with a few commits and tags, built
// with go-git.
type tagRepo struct {
	dir     string
	url     string
	commits []string
	// tagObjects maps annotated tag names to their tag object hash.
	tagObjects map[string]string
}

var sig = &object.Signature{Name: "Test", Email: "test@example.com", When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}

// newTagRepo builds a repository with four commits and these tags:
//
//	c0: v0.1.0, v0.3.0, release-2024
//	c1: v0.3.5 (annotated), v1.0.0
//	c2: v1.2.0, 1.4.0 (annotated, no v)
//	c3: v1.5.0-beta.1, v2.0.0-rc.1 (annotated), v1, latest
func newTagRepo(t testing.TB) *tagRepo {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	r := &tagRepo{dir: dir, url: (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String(), tagObjects: map[string]string{}}
	tags := [][]string{
		{"v0.1.0", "v0.3.0", "release-2024"},
		{"+v0.3.5", "v1.0.0"},
		{"v1.2.0", "+1.4.0"},
		{"v1.5.0-beta.1", "+v2.0.0-rc.1", "v1", "latest"},
	}
	for i, names := range tags {
		if err := os.WriteFile(filepath.Join(dir, "file.txt"), []byte(fmt.Sprint("commit ", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add("file.txt"); err != nil {
			t.Fatal(err)
		}
		h, err := wt.Commit(fmt.Sprint("commit ", i), &git.CommitOptions{Author: sig, Committer: sig})
		if err != nil {
			t.Fatal(err)
		}
		r.commits = append(r.commits, h.String())
		for _, name := range names {
			var opts *git.CreateTagOptions
			if n, ok := strings.CutPrefix(name, "+"); ok {
				name = n
				opts = &git.CreateTagOptions{Tagger: sig, Message: "release " + name}
			}
			ref, err := repo.CreateTag(name, h, opts)
			if err != nil {
				t.Fatal(err)
			}
			if opts != nil {
				r.tagObjects[name] = ref.Hash().String()
			}
		}
	}
	return r
}

// listedRepo builds a tag repository and lists its tags as install does:
// the remote's refs, then TagsFromRefs.
func listedRepo(t *testing.T) (*tagRepo, []Tag) {
	t.Helper()
	r := newTagRepo(t)
	refs, err := gitfetch.ListRefs(context.Background(), r.url, gitfetch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r, TagsFromRefs(refs)
}

func TestTagsOfARemote(t *testing.T) {
	t.Parallel()
	r, tags := listedRepo(t)
	var got []string
	for _, tg := range tags {
		got = append(got, tg.Name)
	}
	want := "1.4.0 latest release-2024 v0.1.0 v0.3.0 v0.3.5 v1 v1.0.0 v1.2.0 v1.5.0-beta.1 v2.0.0-rc.1"
	if strings.Join(got, " ") != want {
		t.Fatalf("tags = %v\nwant %s", got, want)
	}
	byName := map[string]string{}
	for _, tg := range tags {
		byName[tg.Name] = tg.Commit
	}
	wantCommit := map[string]int{"v0.1.0": 0, "v0.3.5": 1, "1.4.0": 2, "v2.0.0-rc.1": 3, "latest": 3}
	for name, i := range wantCommit {
		if byName[name] != r.commits[i] {
			t.Errorf("%s -> %s, want commit %d %s", name, byName[name], i, r.commits[i])
		}
	}
	for name, obj := range r.tagObjects {
		if byName[name] == obj {
			t.Errorf("annotated tag %s not peeled: %s is the tag object", name, obj)
		}
	}
}

func TestResolveConstraint(t *testing.T) {
	t.Parallel()
	r, tags := listedRepo(t)
	tests := []struct {
		constraint string
		pre        bool
		tag        string
		commit     int
	}{
		{"^1.2", false, "1.4.0", 2},
		{"^1.2", true, "v1.5.0-beta.1", 3},
		{"~0.3", false, "v0.3.5", 1},
		{"~0.3.0", false, "v0.3.5", 1},
		{">=1.0, <2", false, "1.4.0", 2},
		{">=1.0 <2", false, "1.4.0", 2},
		{"1.x", false, "1.4.0", 2},
		{"1.2.x", false, "v1.2.0", 2},
		{"*", false, "1.4.0", 2},
		{"*", true, "v2.0.0-rc.1", 3},
		{">=2.0.0-rc.1", false, "v2.0.0-rc.1", 3},
		{"^1.5.0-0", false, "v1.5.0-beta.1", 3},
		{"0.1.0 - 0.3.0", false, "v0.3.0", 0},
		{"^3 || ^1.0", false, "1.4.0", 2},
		{"=1.0.0", false, "v1.0.0", 1},
		{"v1.0.0", false, "v1.0.0", 1},
		{"<1", false, "v0.3.5", 1},
		{" ^0.1 ", false, "v0.1.0", 0},
	}
	for _, tt := range tests {
		tag, commit, err := ResolveConstraint(tags, tt.constraint, tt.pre)
		if err != nil {
			t.Errorf("ResolveConstraint(%q, pre=%v): %v", tt.constraint, tt.pre, err)
			continue
		}
		if tag != tt.tag || commit != r.commits[tt.commit] {
			t.Errorf("ResolveConstraint(%q, pre=%v) = %s %s, want %s (commit %d)", tt.constraint, tt.pre, tag, commit, tt.tag, tt.commit)
		}
	}
}

func TestResolveConstraintErrors(t *testing.T) {
	t.Parallel()
	_, tags := listedRepo(t)

	_, _, err := ResolveConstraint(tags, ">1.4", false)
	var nm *NoMatchError
	if !errors.As(err, &nm) {
		t.Fatalf(">1.4: err = %v, want *NoMatchError", err)
	}
	want := `no tag matches ">1.4"; tags seen: v2.0.0-rc.1, v1.5.0-beta.1, 1.4.0, v1.2.0, v1.0.0, v0.3.5, v0.3.0, v0.1.0, latest, release-2024 (and 1 more); pre-release v2.0.0-rc.1 would match if pre-releases were allowed`
	if err.Error() != want {
		t.Errorf(">1.4: error\n got %s\nwant %s", err, want)
	}
	if nm.Total != 11 || len(nm.Tags) != maxTagsShown {
		t.Errorf("NoMatchError = %+v", nm)
	}

	if tag, _, err := ResolveConstraint(tags, ">1.4", true); err != nil || tag != "v2.0.0-rc.1" {
		t.Errorf(">1.4 with pre-releases: %s, %v", tag, err)
	}
	// A pre-release sorts below its release, so ^2 does not reach 2.0.0-rc.1
	// even with pre-releases allowed; the error then suggests nothing.
	_, _, err = ResolveConstraint(tags, "^2", true)
	if !errors.As(err, &nm) || nm.Prerelease != "" || strings.Contains(err.Error(), "would match") {
		t.Errorf("^2: %v", err)
	}

	_, _, err = ResolveConstraint(nil, "^1", false)
	if err == nil || err.Error() != `no tag matches "^1": the repository has no tags` {
		t.Errorf("no tags: %v", err)
	}

	for _, bad := range []string{"^^1", "", "main", ">=1.0, <", strings.Repeat("1", maxConstraintLen+1)} {
		if _, _, err := ResolveConstraint(tags, bad, false); !errors.Is(err, ErrInvalidConstraint) {
			t.Errorf("ResolveConstraint(%.20q): err = %v, want ErrInvalidConstraint", bad, err)
		}
	}
}

func TestResolveConstraintTies(t *testing.T) {
	t.Parallel()
	tags := []Tag{{"1.2.3", "aaa"}, {"v1.2.3", "bbb"}, {"v1.2.3+build", "ccc"}, {"v1.2", "ddd"}, {"V1.2.4", "eee"}}
	tag, commit, err := ResolveConstraint(tags, "^1", false)
	if err != nil || tag != "v1.2.3" || commit != "bbb" {
		t.Errorf("got %s %s %v, want v1.2.3 bbb", tag, commit, err)
	}
}

func TestIsConstraint(t *testing.T) {
	t.Parallel()
	yes := []string{"^1", "~1.2", ">=1", "1.x", "1.2.X", "1.*", "v1.x", "*", "1.2 - 1.4", ">=1.0, <2", ">= 1.0 < 2",
		"^1 || ^2", "=1.2.3", "!=1.2.3", "~>1.2", "<2.0.0-0", "^0.3.0-beta"}
	no := []string{"", "v1.2.3", "1.2.3", "v1", "1.2", "main", "master", "feature/x", "release-1.x", "x", "X",
		"deadbeef", "0123456789abcdef0123456789abcdef01234567", "1234567", "-^1", "^", ">=", "^1.2.3.4",
		"latest", "v1.2.3-rc.1", "^" + strings.Repeat("1", maxConstraintLen), "1.x.y", "a||b", "refs/tags/v1"}
	for _, s := range yes {
		if !IsConstraint(s) {
			t.Errorf("IsConstraint(%q) = false, want true", s)
		}
	}
	for _, s := range no {
		if IsConstraint(s) {
			t.Errorf("IsConstraint(%.40q) = true, want false", s)
		}
	}
}

func TestTagsFromRefs(t *testing.T) {
	t.Parallel()
	h := func(c byte) plumbing.Hash { return plumbing.NewHash(strings.Repeat(string(c), 40)) }
	refs := []*plumbing.Reference{
		plumbing.NewHashReference("refs/heads/main", h('1')),
		plumbing.NewHashReference("refs/tags/v1.0.0", h('2')),
		plumbing.NewHashReference("refs/tags/v1.0.0^{}", h('3')),
		plumbing.NewHashReference("refs/tags/v0.9.0", h('4')),
		plumbing.NewSymbolicReference("HEAD", "refs/heads/main"),
		plumbing.NewHashReference("refs/pull/1/head", h('5')),
	}
	got := TagsFromRefs(refs)
	want := []Tag{{"v0.9.0", h('4').String()}, {"v1.0.0", h('3').String()}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("TagsFromRefs = %v, want %v", got, want)
	}
}

func BenchmarkResolveConstraint(b *testing.B) {
	var tags []Tag
	for i := 0; i < 2000; i++ {
		tags = append(tags, Tag{Name: fmt.Sprintf("v%d.%d.%d", i/100, i/10%10, i%10), Commit: "c"})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := ResolveConstraint(tags, ">=3.0, <15", false); err != nil {
			b.Fatal(err)
		}
	}
}
