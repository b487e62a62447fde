package gitfetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

var sig = &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}

// fixture is a repository built in a temp dir, with the commits its
// branches and tags name.
type fixture struct {
	dir, url string
	repo     *git.Repository
	commits  map[string]plumbing.Hash // label → commit
}

func (f *fixture) commit(t *testing.T, label string, files map[string]string) plumbing.Hash {
	t.Helper()
	wt, err := f.repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		p := filepath.Join(f.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			t.Fatal(err)
		}
	}
	h, err := wt.Commit(label, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	f.commits[label] = h
	return h
}

func (f *fixture) checkout(t *testing.T, branch string, create bool) {
	t.Helper()
	wt, err := f.repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(branch), Create: create}); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) lightTag(t *testing.T, name string, h plumbing.Hash) {
	t.Helper()
	if _, err := f.repo.CreateTag(name, h, nil); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) annotatedTag(t *testing.T, name string, h plumbing.Hash) plumbing.Hash {
	t.Helper()
	ref, err := f.repo.CreateTag(name, h, &git.CreateTagOptions{Tagger: sig, Message: "release " + name})
	if err != nil {
		t.Fatal(err)
	}
	return ref.Hash()
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{dir: dir, url: "file://" + filepath.ToSlash(dir), repo: repo, commits: map[string]plumbing.Hash{}}
}

// pluginRepo: main c1 → c2 → c4 (HEAD), dev branches off c2 with c3.
// Tags: v1 (lightweight, c1), v2 (annotated, c2), both (tag c1; also a
// branch at c3). A branch named like a hash, deadbee, sits at c2.
func pluginRepo(t *testing.T) (*fixture, plumbing.Hash) {
	f := newFixture(t)
	c1 := f.commit(t, "c1", map[string]string{"VERSION": "1", "plugin.toml": "[plugin]\nname = \"p\"\n"})
	f.lightTag(t, "v1", c1)
	f.lightTag(t, "both", c1)
	c2 := f.commit(t, "c2", map[string]string{"VERSION": "2"})
	tagObj := f.annotatedTag(t, "v2", c2)
	f.checkout(t, "dev", true)
	c3 := f.commit(t, "c3", map[string]string{"VERSION": "dev", "dev-only": "x"})
	if err := f.repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName("both"), c3)); err != nil {
		t.Fatal(err)
	}
	if err := f.repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName("deadbee"), c2)); err != nil {
		t.Fatal(err)
	}
	f.checkout(t, "main", false)
	f.commit(t, "c4", map[string]string{"VERSION": "4"})
	return f, tagObj
}

func TestListRefs(t *testing.T) {
	t.Parallel()
	f, tagObj := pluginRepo(t)
	refs, err := ListRefs(context.Background(), f.url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range refs {
		if r.Type() == plumbing.SymbolicReference {
			got[r.Name().String()] = "-> " + r.Target().String()
		} else {
			got[r.Name().String()] = r.Hash().String()
		}
	}
	want := map[string]string{
		"refs/heads/main":    f.commits["c4"].String(),
		"refs/heads/dev":     f.commits["c3"].String(),
		"refs/heads/both":    f.commits["c3"].String(),
		"refs/heads/deadbee": f.commits["c2"].String(),
		"refs/tags/v1":       f.commits["c1"].String(),
		"refs/tags/both":     f.commits["c1"].String(),
		"refs/tags/v2":       tagObj.String(),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// go-git's in-process file:// server does not advertise peeled tags
	// (a TODO in its server.go); when a remote does, the entry must name
	// the commit. TestResolvePeeled covers Resolve's use of it.
	if p, ok := got["refs/tags/v2^{}"]; ok && p != f.commits["c2"].String() {
		t.Errorf("refs/tags/v2^{} = %q, want %s", p, f.commits["c2"])
	}
	if h := got["HEAD"]; h != "-> refs/heads/main" && h != f.commits["c4"].String() {
		t.Errorf("HEAD = %q, want main", h)
	}

	if _, err := ListRefs(context.Background(), "file://"+filepath.ToSlash(t.TempDir()), Options{}); err == nil {
		t.Error("ListRefs of a directory that is not a repository succeeded")
	}
}

func TestResolveAndCheckout(t *testing.T) {
	t.Parallel()
	f, tagObj := pluginRepo(t)
	ctx := context.Background()
	refs, err := ListRefs(ctx, f.url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := f.commits
	cases := []struct {
		ref        string
		kind       RefKind
		refName    string
		object     string
		commit     string // expected checkout
		version    string // VERSION at that commit
		knownAhead bool   // Resolve already knows the commit
	}{
		{"", KindDefault, "refs/heads/main", c["c4"].String(), c["c4"].String(), "4", true},
		{"v1", KindTag, "refs/tags/v1", c["c1"].String(), c["c1"].String(), "1", false},
		{"v2", KindTag, "refs/tags/v2", tagObj.String(), c["c2"].String(), "2", false}, // file:// lists no peeled refs
		{"dev", KindBranch, "refs/heads/dev", c["c3"].String(), c["c3"].String(), "dev", true},
		{"both", KindTag, "refs/tags/both", c["c1"].String(), c["c1"].String(), "1", false}, // a tag wins over a branch
		{"deadbee", KindBranch, "refs/heads/deadbee", c["c2"].String(), c["c2"].String(), "2", true},
		{c["c1"].String(), KindCommit, "", "", c["c1"].String(), "1", true},
		{c["c3"].String(), KindCommit, "", "", c["c3"].String(), "dev", true}, // off the default branch
		{c["c2"].String()[:7], KindCommit, "", "", c["c2"].String(), "2", false},
		{strings.ToUpper(c["c1"].String()[:12]), KindCommit, "", "", c["c1"].String(), "1", false},
	}
	for _, tc := range cases {
		t.Run("ref="+tc.ref, func(t *testing.T) {
			rev, err := Resolve(refs, tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			if rev.Kind != tc.kind || string(rev.RefName) != tc.refName || rev.Object != tc.object || rev.Ref != tc.ref {
				t.Errorf("Resolve = %+v, want kind %s ref %s object %s", rev, tc.kind, tc.refName, tc.object)
			}
			if tc.knownAhead && rev.Commit != tc.commit {
				t.Errorf("Resolve.Commit = %q, want %q", rev.Commit, tc.commit)
			}
			dir := filepath.Join(t.TempDir(), "tree")
			got, err := Checkout(ctx, f.url, rev, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.commit {
				t.Errorf("Checkout commit = %s, want %s", got, tc.commit)
			}
			data, err := os.ReadFile(filepath.Join(dir, "VERSION"))
			if err != nil || string(data) != tc.version {
				t.Errorf("VERSION = %q, %v; want %q", data, err, tc.version)
			}
			_, err = os.Stat(filepath.Join(dir, "dev-only"))
			if (tc.version == "dev") != (err == nil) {
				t.Errorf("dev-only present = %v at %s", err == nil, tc.version)
			}
			if err := RemoveGitDir(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, ".git")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf(".git left after RemoveGitDir: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "plugin.toml")); err != nil {
				t.Errorf("RemoveGitDir removed more than .git: %v", err)
			}
		})
	}
}

// Resolve takes an annotated tag's commit from its peeled entry, as remotes
// such as GitHub advertise it.
func TestResolvePeeled(t *testing.T) {
	tagObj := plumbing.NewHash("1111111111111111111111111111111111111111")
	commit := plumbing.NewHash("2222222222222222222222222222222222222222")
	refs := []*plumbing.Reference{
		plumbing.NewSymbolicReference(plumbing.HEAD, "refs/heads/main"),
		plumbing.NewHashReference("refs/heads/main", commit),
		plumbing.NewHashReference("refs/tags/v2", tagObj),
		plumbing.NewHashReference("refs/tags/v2^{}", commit),
	}
	rev, err := Resolve(refs, "v2")
	if err != nil {
		t.Fatal(err)
	}
	if rev.Kind != KindTag || rev.Object != tagObj.String() || rev.Commit != commit.String() {
		t.Errorf("Resolve(v2) = %+v, want object %s commit %s", rev, tagObj, commit)
	}
	// HEAD advertised as a plain hash (no symref): the branch at it.
	refs[0] = plumbing.NewHashReference(plumbing.HEAD, commit)
	rev, err = Resolve(refs, "")
	if err != nil || rev.RefName != "refs/heads/main" || rev.Commit != commit.String() {
		t.Errorf("Resolve(\"\") with hash HEAD = %+v, %v", rev, err)
	}
	// HEAD pointing at a branch the remote lacks.
	refs = refs[1:]
	refs = append(refs, plumbing.NewSymbolicReference(plumbing.HEAD, "refs/heads/gone"))
	if _, err := Resolve(refs, ""); !errors.Is(err, ErrRefNotFound) {
		t.Errorf("dangling HEAD: %v", err)
	}
}

func TestResolveMissing(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t)
	refs, err := ListRefs(context.Background(), f.url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"v3", "nope", "refs/heads/main", "main^", "zzzzzzz"} {
		if rev, err := Resolve(refs, ref); err == nil {
			t.Errorf("Resolve(%q) = %+v, want an error", ref, rev)
		}
	}
	if _, err := Resolve(refs, "v3"); !errors.Is(err, ErrRefNotFound) {
		t.Errorf("Resolve(v3) = %v, want ErrRefNotFound", err)
	}
	// A hash-shaped ref is only known to be missing after fetching.
	rev, err := Resolve(refs, "0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Checkout(context.Background(), f.url, rev, filepath.Join(t.TempDir(), "t"), Options{})
	if !errors.Is(err, ErrRefNotFound) {
		t.Errorf("Checkout of a missing commit = %v, want ErrRefNotFound", err)
	}
	// A remote without HEAD has no default branch.
	if _, err := Resolve(nil, ""); !errors.Is(err, ErrRefNotFound) {
		t.Errorf("Resolve of no refs = %v", err)
	}
}

// A Revision whose commit is not what the remote has is refused, so a ref
// that moved between listing and fetching is noticed.
func TestCheckoutNoticesMovedRef(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t)
	rev := revisionOf(t, f.url, "dev")
	f.checkout(t, "dev", false)
	f.commit(t, "c5", map[string]string{"VERSION": "moved"})
	_, err := Checkout(context.Background(), f.url, rev, filepath.Join(t.TempDir(), "t"), Options{})
	if err == nil || !strings.Contains(err.Error(), "moved") {
		t.Errorf("Checkout after the branch moved = %v, want a 'moved' error", err)
	}
}

func TestCheckRef(t *testing.T) {
	ok := []string{"v1.2.3", "main", "feature/x", "release-1_0", "0123abc", "@", "a@b"}
	bad := []string{"-v", "--upload-pack=evil", "-", "a b", "a..b", "a~1", "a^", "a:b", "a?", "a*", "a[", `a\b`, "a\x7f", "a\x00", "a\nb", "a@{1}", strings.Repeat("a", 256)}
	for _, r := range ok {
		if err := CheckRef(r); err != nil {
			t.Errorf("CheckRef(%q) = %v", r, err)
		}
	}
	for _, r := range bad {
		if err := CheckRef(r); err == nil {
			t.Errorf("CheckRef(%q) accepted", r)
		}
	}
	// Resolve refuses them before looking, even when the remote has such a
	// ref.
	refs := []*plumbing.Reference{plumbing.NewHashReference("refs/tags/-x", plumbing.NewHash("0123456789012345678901234567890123456789"))}
	if _, err := Resolve(refs, "-x"); err == nil || !strings.Contains(err.Error(), "'-'") {
		t.Errorf("Resolve(-x) = %v, want refusal", err)
	}
}

// Submodules are never fetched: a repo with .gitmodules and a gitlink
// checks out, and the submodule's directory stays empty even though its
// URL points at a real, reachable repository.
func TestCheckoutSkipsSubmodules(t *testing.T) {
	t.Parallel()
	sub := newFixture(t)
	subHead := sub.commit(t, "sub", map[string]string{"SECRET": "fetched!"})

	f := newFixture(t)
	f.commit(t, "base", map[string]string{
		"VERSION":     "1",
		".gitmodules": "[submodule \"sub\"]\n\tpath = sub\n\turl = " + sub.url + "\n",
	})
	addGitlink(t, f, "sub", subHead)

	ctx := context.Background()
	refs, err := ListRefs(ctx, f.url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := Resolve(refs, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	got, err := Checkout(ctx, f.url, rev, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got != f.commits["gitlink"].String() {
		t.Errorf("checked out %s, want %s", got, f.commits["gitlink"])
	}
	if data, err := os.ReadFile(filepath.Join(dir, "VERSION")); err != nil || string(data) != "1" {
		t.Errorf("VERSION = %q, %v", data, err)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "sub"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("submodule dir holds %d entries: it was fetched", len(ents))
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "modules")); err == nil {
		t.Error(".git/modules exists: a submodule was fetched")
	}
}

// addGitlink commits a tree that adds a submodule entry (mode 160000) at
// path pointing to commit, on top of the fixture's HEAD.
func addGitlink(t *testing.T, f *fixture, path string, commit plumbing.Hash) {
	t.Helper()
	head, err := f.repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	parent, err := f.repo.CommitObject(head.Hash())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := parent.Tree()
	if err != nil {
		t.Fatal(err)
	}
	entries := append([]object.TreeEntry(nil), tree.Entries...)
	entries = append(entries, object.TreeEntry{Name: path, Mode: filemode.Submodule, Hash: commit})
	sortTreeEntries(entries)
	nt := &object.Tree{Entries: entries}
	obj := f.repo.Storer.NewEncodedObject()
	if err := nt.Encode(obj); err != nil {
		t.Fatal(err)
	}
	treeHash, err := f.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	c := &object.Commit{Author: *sig, Committer: *sig, Message: "gitlink", TreeHash: treeHash, ParentHashes: []plumbing.Hash{head.Hash()}}
	obj = f.repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		t.Fatal(err)
	}
	ch, err := f.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.repo.Storer.SetReference(plumbing.NewHashReference(head.Name(), ch)); err != nil {
		t.Fatal(err)
	}
	f.commits["gitlink"] = ch
}

// sortTreeEntries orders entries as git does (names compared bytewise;
// no directories other than the gitlink are involved here).
func sortTreeEntries(es []object.TreeEntry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Name < es[j-1].Name; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// revisionOf lists url's refs and resolves ref among them, as install
// does before a checkout.
func revisionOf(t *testing.T, url, ref string) Revision {
	t.Helper()
	refs, err := ListRefs(context.Background(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := Resolve(refs, ref)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}
