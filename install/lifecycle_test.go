package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/treehash"
)

// helloScript prints the VERSION file of the tree it runs from (found
// through the command link).
const helloScript = "#!/bin/sh\nd=$(dirname \"$(readlink -f \"$0\")\")\necho hello from v$(cat \"$d/../VERSION\")\n"

// plugin is a plugin's files: plugin.toml text and other files (paths
// under bin/ are made executable).
func pluginFiles(version, extraToml string, commands ...string) map[string]string {
	if len(commands) == 0 {
		commands = []string{"hello"}
	}
	var b strings.Builder
	b.WriteString("[plugin]\nname = \"fledge-plugin-hello\"\nversion = \"" + version + "\"\ndescription = \"says hello\"\nauthor = \"t\"\n" + extraToml + "\n")
	files := map[string]string{"VERSION": version}
	for _, c := range commands {
		b.WriteString("[[commands]]\nname = \"" + c + "\"\nbinary = \"bin/" + c + "\"\n")
		files["bin/"+c] = helloScript
	}
	files["plugin.toml"] = b.String()
	return files
}

// gitRepo is a plugin repository built with go-git, reachable as file://.
type gitRepo struct {
	dir, url string
	repo     *git.Repository
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		t.Fatal(err)
	}
	return &gitRepo{dir: dir, url: "file://" + filepath.ToSlash(dir), repo: r}
}

// commit replaces the work tree's files with files and commits them.
func (g *gitRepo) commit(t *testing.T, files map[string]string, tag string) string {
	t.Helper()
	wt, err := g.repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(g.dir)
	for _, e := range ents {
		if e.Name() != ".git" {
			os.RemoveAll(filepath.Join(g.dir, e.Name()))
		}
	}
	testutil.WriteTree(t, g.dir, files)
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	h, err := wt.Commit("v", &git.CommitOptions{Author: sig, Committer: sig, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if tag != "" {
		if _, err := g.repo.CreateTag(tag, h, nil); err != nil {
			t.Fatal(err)
		}
	}
	return h.String()
}

type env struct {
	paths home.Paths
	store *lockfile.Store
	log   *bytes.Buffer
}

func newEnv(t *testing.T) *env {
	t.Helper()
	p, err := home.New(filepath.Join(t.TempDir(), "fledge"))
	if err != nil {
		t.Fatal(err)
	}
	return &env{paths: p, store: lockfile.NewStore(p.PluginsFile(), p.PluginsLock()), log: &bytes.Buffer{}}
}

func (e *env) installer(c Consent) *Installer {
	return &Installer{
		Paths: e.paths, Store: e.store, Consent: c, Log: e.log,
		Env: []string{"PATH=" + os.Getenv("PATH")},
		Now: func() time.Time { return time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC) },
	}
}

func (e *env) remover() *Remover {
	return &Remover{Paths: e.paths, Store: e.store, Log: e.log, Env: []string{"PATH=" + os.Getenv("PATH")}}
}

// snapshot is everything an install may touch, for before/after checks.
type snapshot struct {
	lock    string            // plugins.toml bytes ("" when absent)
	tree    string            // tree hash of the plugin dir ("" when absent)
	isLink  bool              // the plugin dir is a symlink
	links   map[string]string // bin dir: link → target
	staging []string
	trash   []string
}

func (e *env) snapshot(t *testing.T, name string) snapshot {
	t.Helper()
	var s snapshot
	if data, err := os.ReadFile(e.paths.PluginsFile()); err == nil {
		s.lock = string(data)
	}
	if fi, err := os.Lstat(e.paths.PluginDir(name)); err == nil {
		s.isLink = fi.Mode()&os.ModeSymlink != 0
		tr, err := treehash.Hash(e.paths.PluginDir(name), treehash.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.tree = tr.Hash
	}
	s.links = map[string]string{}
	ents, _ := os.ReadDir(e.paths.BinDir())
	for _, en := range ents {
		target, err := os.Readlink(filepath.Join(e.paths.BinDir(), en.Name()))
		if err != nil {
			target = "not a link"
		}
		s.links[en.Name()] = target
	}
	s.staging = names(t, e.paths.StagingDir())
	s.trash = names(t, e.paths.TrashDir())
	return s
}

func names(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	out := []string{}
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func (e *env) entry(t *testing.T, name string) (*lockfile.Plugin, bool) {
	t.Helper()
	f, err := e.store.Load()
	if err != nil {
		t.Fatal(err)
	}
	return f.Get(name)
}

// runCommand runs an installed command through its link, as a PATH user would.
// The tests install in-process while parallel tests fork: a child forked
// while this test's copy of the script was open for writing holds that
// descriptor until it execs, and exec then fails with ETXTBSY
// (go.dev/issue/22315). That is the test's sharing, not the install, so
// it retries while the script is busy.
func runCommand(t *testing.T, e *env, command string) string {
	t.Helper()
	var out []byte
	var err error
	for range 50 {
		out, err = exec.Command(e.paths.CommandLink(command)).CombinedOutput()
		if !errors.Is(err, syscall.ETXTBSY) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("run %s: %v\n%s", command, err, out)
	}
	return strings.TrimSpace(string(out))
}

const name = "fledge-plugin-hello"

func TestInstallLocalLinkThenRemove(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	src := t.TempDir()
	testutil.WriteTree(t, src, pluginFiles("1.0.0", ""))
	realSrc, _ := filepath.EvalSymlinks(src)

	res, err := e.installer(Consent{}).Install(context.Background(), src)
	if err != nil {
		t.Fatalf("Install: %v\n%s", err, e.log)
	}
	if res.Tier != registry.TierLocal || res.Replaced {
		t.Errorf("result tier %s replaced %v", res.Tier, res.Replaced)
	}
	got, ok := e.entry(t, name)
	if !ok {
		t.Fatal("no entry recorded")
	}
	if got.Kind != lockfile.KindLocalLink || got.Source != realSrc || got.Version != "1.0.0" || !reflect.DeepEqual(got.Commands, []string{"hello"}) {
		t.Errorf("entry = %+v", got)
	}
	if got.Name != res.Entry.Name || got.TreeHash != res.Entry.TreeHash || got.ManifestHash != res.Entry.ManifestHash || got.ManifestHash == "" || got.Installed != "2026-02-03T04:05:06Z" {
		t.Errorf("recorded entry differs from the result:\n%+v\n%+v", *got, res.Entry)
	}
	if target, err := os.Readlink(e.paths.PluginDir(name)); err != nil || target != realSrc {
		t.Errorf("plugin dir link = %q, %v; want a link to %s", target, err, realSrc)
	}
	tr, err := treehash.Hash(src, treehash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.TreeHash != tr.Hash || got.SourceHash != tr.Hash {
		t.Errorf("tree hash %s / source hash %s, want %s", got.TreeHash, got.SourceHash, tr.Hash)
	}
	if out := runCommand(t, e, "hello"); out != "hello from v1.0.0" {
		t.Errorf("command printed %q", out)
	}
	// Live link: an edit in the source shows at once.
	writeFile(t, filepath.Join(src, "VERSION"), "1.0.1", 0o644)
	if out := runCommand(t, e, "hello"); out != "hello from v1.0.1" {
		t.Errorf("after editing the source, command printed %q", out)
	}

	// Installing again without --force changes nothing, even with --yes.
	before := e.snapshot(t, name)
	_, err = e.installer(Consent{Yes: true}).Install(context.Background(), src)
	if !errors.Is(err, ErrAlreadyInstalled) {
		t.Errorf("second install = %v, want ErrAlreadyInstalled", err)
	}
	if after := e.snapshot(t, name); !reflect.DeepEqual(before, after) {
		t.Errorf("failed reinstall changed state:\n%+v\n%+v", before, after)
	}

	// A command link the user re-pointed elsewhere is theirs: Remove keeps it.
	own := filepath.Join(t.TempDir(), "mine")
	writeFile(t, own, "#!/bin/sh\necho mine\n", 0o755)
	if err := os.Remove(e.paths.CommandLink("hello")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(own, e.paths.CommandLink("hello")); err != nil {
		t.Fatal(err)
	}
	removed, err := e.remover().Remove(context.Background(), "hello") // short name
	if target, err := os.Readlink(e.paths.CommandLink("hello")); err != nil || target != own {
		t.Errorf("user's link = %q, %v; want it kept", target, err)
	}
	os.Remove(e.paths.CommandLink("hello"))
	if err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if removed.Name != name {
		t.Errorf("removed %s", removed.Name)
	}
	assertGone(t, e)
	// The source behind the link is untouched.
	if tr2, err := treehash.Hash(src, treehash.Options{}); err != nil || tr2.Entries == nil || len(tr2.Entries) != len(tr.Entries) {
		t.Errorf("source dir damaged by remove: %v", err)
	}
	if _, err := e.remover().Remove(context.Background(), "hello"); !errors.Is(err, lockfile.ErrNotInstalled) {
		t.Errorf("second Remove = %v, want ErrNotInstalled", err)
	}
}

func assertGone(t *testing.T, e *env) {
	t.Helper()
	if _, ok := e.entry(t, name); ok {
		t.Error("entry still recorded")
	}
	if _, err := os.Lstat(e.paths.PluginDir(name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plugin dir still there: %v", err)
	}
	if _, err := os.Lstat(e.paths.CommandLink("hello")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("command link still there: %v", err)
	}
	if _, err := os.Lstat(e.paths.DataDir(name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data dir still there: %v", err)
	}
	if tr := names(t, e.paths.TrashDir()); len(tr) != 0 {
		t.Errorf("trash not emptied: %v", tr)
	}
}

func TestInstallLocalCopyThenRemove(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	src := t.TempDir()
	testutil.WriteTree(t, src, pluginFiles("1.0.0", ""))
	in := e.installer(Consent{})
	in.Copy = true
	res, err := in.Install(context.Background(), src)
	if err != nil {
		t.Fatalf("Install: %v\n%s", err, e.log)
	}
	if res.Entry.Kind != lockfile.KindLocalCopy {
		t.Errorf("kind %s", res.Entry.Kind)
	}
	if fi, err := os.Lstat(e.paths.PluginDir(name)); err != nil || !fi.IsDir() {
		t.Fatalf("plugin dir is not a copied directory: %v", err)
	}
	writeFile(t, filepath.Join(src, "VERSION"), "9.9.9", 0o644)
	if out := runCommand(t, e, "hello"); out != "hello from v1.0.0" {
		t.Errorf("a snapshot followed its source: %q", out)
	}
	if _, err := e.remover().Remove(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	assertGone(t, e)
	if _, err := os.Stat(filepath.Join(src, "plugin.toml")); err != nil {
		t.Errorf("source gone: %v", err)
	}
}

func TestInstallGitThenRemove(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	g := newGitRepo(t)
	c1 := g.commit(t, pluginFiles("1.0.0", ""), "v1.0.0")
	c2 := g.commit(t, pluginFiles("2.0.0", ""), "")

	res, err := e.installer(Consent{}).Install(context.Background(), g.url)
	if err != nil {
		t.Fatalf("Install: %v\n%s", err, e.log)
	}
	got := res.Entry
	if res.Tier != registry.TierUnverified || got.Kind != lockfile.KindGit || got.Commit != c2 || got.URL != g.url || got.Version != "2.0.0" || got.RefKind != "default" {
		t.Errorf("tier %s, entry %+v", res.Tier, got)
	}
	dir := e.paths.PluginDir(name)
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("plugin dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".git kept in the installed tree: %v", err)
	}
	tr, err := treehash.Hash(dir, treehash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.TreeHash != tr.Hash {
		t.Errorf("recorded tree hash %s, tree is %s", got.TreeHash, tr.Hash)
	}
	var recorded treehash.Tree
	if data, err := os.ReadFile(e.paths.TreeFile(name)); err != nil || json.Unmarshal(data, &recorded) != nil || recorded.Hash != tr.Hash {
		t.Errorf("tree file: %v, hash %s", err, recorded.Hash)
	}
	if out := runCommand(t, e, "hello"); out != "hello from v2.0.0" {
		t.Errorf("command printed %q", out)
	}
	if _, err := e.remover().Remove(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	assertGone(t, e)

	// Pinned to a tag: that revision, recorded with its ref.
	res, err = e.installer(Consent{}).Install(context.Background(), g.url+"@v1.0.0")
	if err != nil {
		t.Fatalf("Install @v1.0.0: %v\n%s", err, e.log)
	}
	if res.Entry.Commit != c1 || res.Entry.PinnedRef != "v1.0.0" || res.Entry.RefKind != "tag" || res.Entry.Version != "1.0.0" {
		t.Errorf("pinned entry %+v", res.Entry)
	}
	if out := runCommand(t, e, "hello"); out != "hello from v1.0.0" {
		t.Errorf("command printed %q", out)
	}
	if s := names(t, e.paths.StagingDir()); len(s) != 0 {
		t.Errorf("staging not cleaned: %v", s)
	}
}

// A --force reinstall whose post_install fails puts back exactly what was
// there: the old tree, its links, its entry, byte for byte.
func TestForceReinstallFailingPostInstallRestores(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	g := newGitRepo(t)
	g.commit(t, pluginFiles("1.0.0", "", "hello"), "")
	if _, err := e.installer(Consent{}).Install(context.Background(), g.url); err != nil {
		t.Fatalf("first install: %v\n%s", err, e.log)
	}
	// A link the user made for a command no plugin owns yet: v2 takes it
	// over, and must give it back when v2 fails.
	if err := os.Symlink("/bin/true", e.paths.CommandLink("extra")); err != nil {
		t.Fatal(err)
	}
	before := e.snapshot(t, name)
	if before.tree == "" || before.lock == "" || before.links["fledge-hello"] == "" || before.links["fledge-extra"] != "/bin/true" {
		t.Fatalf("bad first install: %+v", before)
	}

	// v2 adds a command and a post_install that dirties the tree, then fails.
	g.commit(t, pluginFiles("2.0.0", "\n[hooks]\npost_install = \"echo junk > junk.txt; echo dying >&2; exit 7\"\n", "hello", "extra"), "")
	in := e.installer(Consent{Grant: grants("hooks")})
	in.Force = true
	_, err := in.Install(context.Background(), g.url)
	var he *HookError
	if !errors.As(err, &he) || he.Hook != "post_install" || !strings.Contains(he.Tail, "dying") {
		t.Fatalf("Install = %v, want the post_install HookError", err)
	}
	after := e.snapshot(t, name)
	if after.lock != before.lock {
		t.Errorf("plugins.toml changed:\n--- before\n%s\n--- after\n%s", before.lock, after.lock)
	}
	if after.tree != before.tree {
		t.Errorf("tree hash %s, want the old %s", after.tree, before.tree)
	}
	if !reflect.DeepEqual(after.links, before.links) {
		t.Errorf("links %v, want %v", after.links, before.links)
	}
	if len(after.staging) != 0 || len(after.trash) != 0 {
		t.Errorf("leftovers: staging %v, trash %v", after.staging, after.trash)
	}
	if out := runCommand(t, e, "hello"); out != "hello from v1.0.0" {
		t.Errorf("old command printed %q", out)
	}

	// A working v3 replaces it.
	g.commit(t, pluginFiles("3.0.0", "\n[hooks]\npost_install = \"echo ok\"\n", "hello", "extra"), "")
	res, err := in.Install(context.Background(), g.url)
	if err != nil {
		t.Fatalf("v3: %v\n%s", err, e.log)
	}
	if !res.Replaced || res.Entry.Version != "3.0.0" || res.Entry.Hooks["post_install"] != "echo ok" {
		t.Errorf("v3 result %+v", res)
	}
	if out := runCommand(t, e, "extra"); out != "hello from v3.0.0" {
		t.Errorf("new command printed %q", out)
	}
	if tr := names(t, e.paths.TrashDir()); len(tr) != 0 {
		t.Errorf("old tree left in trash: %v", tr)
	}
}

// An install that is not approved leaves nothing behind.
func TestInstallUnapprovedLeavesNothing(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	g := newGitRepo(t)
	g.commit(t, pluginFiles("1.0.0", "\n[capabilities]\nexec = true\nstore = true\n"), "")
	before := e.snapshot(t, name)
	for _, c := range []Consent{{}, {Yes: true}} {
		_, err := e.installer(c).Install(context.Background(), g.url)
		var ae *ApprovalError
		if !errors.As(err, &ae) || !reflect.DeepEqual(ae.Missing, wantMissing(c)) {
			t.Errorf("consent %+v: Install = %v, want ApprovalError for %v", c, err, wantMissing(c))
		}
		after := e.snapshot(t, name)
		after.staging = nil
		before.staging = nil
		if !reflect.DeepEqual(before, after) {
			t.Errorf("state changed:\n%+v\n%+v", before, after)
		}
		if s := names(t, e.paths.StagingDir()); len(s) != 0 {
			t.Errorf("staging not cleaned: %v", s)
		}
	}
	// --grant approves exactly: exec only.
	res, err := e.installer(Consent{Grant: grants("exec")}).Install(context.Background(), g.url)
	if err != nil {
		t.Fatal(err)
	}
	if res.Entry.Capabilities.Exec != true || res.Entry.Capabilities.Store || !res.Entry.Requested.Store {
		t.Errorf("granted %+v, requested %+v", res.Entry.Capabilities, res.Entry.Requested)
	}
}

func wantMissing(c Consent) []string {
	if c.Yes {
		return []string{"exec"}
	}
	return []string{"exec", "store"}
}

func TestInstallCommandConflict(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	a := t.TempDir()
	testutil.WriteTree(t, a, pluginFiles("1.0.0", ""))
	if _, err := e.installer(Consent{}).Install(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	b := t.TempDir()
	files := pluginFiles("1.0.0", "")
	files["plugin.toml"] = strings.Replace(files["plugin.toml"], "fledge-plugin-hello", "fledge-plugin-other", 1)
	testutil.WriteTree(t, b, files)
	before := e.snapshot(t, name)
	for _, force := range []bool{false, true} {
		in := e.installer(Consent{Yes: true})
		in.Force = force
		_, err := in.Install(context.Background(), b)
		var ce *ConflictError
		if !errors.As(err, &ce) || ce.Command != "hello" || ce.Owner != name {
			t.Errorf("force=%v: Install = %v, want ConflictError over hello", force, err)
		}
	}
	if after := e.snapshot(t, name); !reflect.DeepEqual(before, after) {
		t.Errorf("conflict changed state:\n%+v\n%+v", before, after)
	}
	if _, err := os.Lstat(e.paths.PluginDir("fledge-plugin-other")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("conflicting plugin placed: %v", err)
	}
}

func TestRemovePostRemoveHook(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	g := newGitRepo(t)
	marker := filepath.Join(t.TempDir(), "marker")
	files := pluginFiles("1.0.0", "\n[hooks]\npost_remove = \"./cleanup.sh\"\n")
	files["cleanup.sh"] = "#!/bin/sh\nif [ -n \"$FLEDGE_TEST_FAIL\" ]; then echo refusing >&2; exit 4; fi\necho \"$FLEDGE_PLUGIN_DIR\" > " + marker + "\n"
	g.commit(t, files, "")
	if _, err := e.installer(Consent{Grant: grants("hooks")}).Install(context.Background(), g.url); err != nil {
		t.Fatalf("Install: %v\n%s", err, e.log)
	}
	before := e.snapshot(t, name)
	realDir, err := filepath.EvalSymlinks(e.paths.PluginDir(name))
	if err != nil {
		t.Fatal(err)
	}
	// A failing post_remove first: nothing is removed.
	r := e.remover()
	r.Env = append(r.Env, "FLEDGE_TEST_FAIL=1") // the base environment holds FLEDGE_*
	_, err = r.Remove(context.Background(), name)
	var he *HookError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "not removed") {
		t.Fatalf("Remove = %v, want a post_remove HookError saying nothing was removed", err)
	}
	if after := e.snapshot(t, name); !reflect.DeepEqual(before, after) {
		t.Errorf("failed post_remove changed state:\n%+v\n%+v", before, after)
	}

	if _, err := e.remover().Remove(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	assertGone(t, e)
	data, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("post_remove did not run: %v", err)
	}
	if got := strings.TrimSpace(string(data)); got != realDir {
		t.Errorf("post_remove saw FLEDGE_PLUGIN_DIR=%q, want %s", got, realDir)
	}
}

// Hooks and build commands that were not approved never run.
func TestUnapprovedHooksNeverRun(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	hooks := "\n[hooks]\nbuild = \"touch " + marker + "-build\"\npost_install = \"touch " + marker + "-post\"\n"

	e := newEnv(t)
	g := newGitRepo(t)
	g.commit(t, pluginFiles("1.0.0", hooks), "")
	local := t.TempDir()
	testutil.WriteTree(t, local, pluginFiles("1.0.0", hooks))

	cases := []struct {
		src     string
		consent Consent
	}{
		{g.url, Consent{}},                      // no flags, no terminal
		{g.url, Consent{Yes: true}},             // --yes on unverified
		{g.url, Consent{Grant: grants("exec")}}, // --grant without hooks
		{g.url, Consent{Ask: func(Request) (Decision, error) { return Decision{}, nil }}}, // user says no
		{local, Consent{Grant: grants("store")}},                                          // local, --grant without hooks
	}
	for _, tc := range cases {
		before := e.snapshot(t, name)
		_, err := e.installer(tc.consent).Install(context.Background(), tc.src)
		var ae *ApprovalError
		if !errors.As(err, &ae) || !reflect.DeepEqual(ae.Missing, []string{"hooks"}) {
			t.Errorf("%s %+v: Install = %v, want ApprovalError for hooks", tc.src, tc.consent, err)
		}
		for _, suffix := range []string{"-build", "-post"} {
			if _, err := os.Stat(marker + suffix); err == nil {
				t.Fatalf("%s %+v: unapproved hook %s ran", tc.src, tc.consent, suffix)
			}
		}
		if after := e.snapshot(t, name); !reflect.DeepEqual(before, after) {
			t.Errorf("state changed:\n%+v\n%+v", before, after)
		}
	}
	// Approved, both run.
	res, err := e.installer(Consent{Grant: grants("hooks")}).Install(context.Background(), g.url)
	if err != nil {
		t.Fatalf("approved install: %v\n%s", err, e.log)
	}
	for _, suffix := range []string{"-build", "-post"} {
		if _, err := os.Stat(marker + suffix); err != nil {
			t.Errorf("approved hook %s did not run", suffix)
		}
	}
	if res.Entry.Hooks["build"] == "" || res.Entry.Hooks["post_install"] == "" || res.Entry.BuildCommand == "" {
		t.Errorf("approved hooks not recorded: %+v", res.Entry)
	}
}

// Trees fledge must not install are refused before anything is placed.
func TestInstallRefusesUnsafeTrees(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "evil"), "#!/bin/sh\necho evil\n", 0o755)
	cases := map[string]func(t *testing.T, dir string){
		"escaping symlink": func(t *testing.T, dir string) {
			os.Symlink(filepath.Join(outside, "evil"), filepath.Join(dir, "lib"))
		},
		"binary links out": func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "bin", "hello"))
			os.Symlink(filepath.Join(outside, "evil"), filepath.Join(dir, "bin", "hello"))
		},
		"fifo": func(t *testing.T, dir string) {
			if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
				t.Skip(err)
			}
		},
		"bad name": func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "plugin.toml"), "[plugin]\nname = \"../evil\"\nversion = \"1.0.0\"\n[[commands]]\nname = \"hello\"\nbinary = \"bin/hello\"\n", 0o644)
		},
		"symlinked manifest": func(t *testing.T, dir string) {
			data, _ := os.ReadFile(filepath.Join(dir, "plugin.toml"))
			writeFile(t, filepath.Join(outside, "m.toml"), string(data), 0o644)
			os.Remove(filepath.Join(dir, "plugin.toml"))
			os.Symlink(filepath.Join(outside, "m.toml"), filepath.Join(dir, "plugin.toml"))
		},
		"missing binary": func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "bin", "hello"))
		},
	}
	for label, spoil := range cases {
		for _, copy := range []bool{false, true} {
			e := newEnv(t)
			dir := t.TempDir()
			testutil.WriteTree(t, dir, pluginFiles("1.0.0", ""))
			spoil(t, dir)
			in := e.installer(Consent{Yes: true})
			in.Copy = copy
			before := e.snapshot(t, name)
			if _, err := in.Install(context.Background(), dir); err == nil {
				t.Errorf("%s (copy=%v): installed", label, copy)
			}
			if after := e.snapshot(t, name); !reflect.DeepEqual(before, after) {
				t.Errorf("%s (copy=%v): state changed:\n%+v\n%+v", label, copy, before, after)
			}
			for _, n := range names(t, e.paths.PluginsDir()) {
				if n != ".staging" && n != ".trash" {
					t.Errorf("%s (copy=%v): left %s in the plugins dir", label, copy, n)
				}
			}
		}
	}
}

// A --force reinstall that drops a command removes its link.
func TestForceReinstallDropsOldCommandLinks(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	g := newGitRepo(t)
	g.commit(t, pluginFiles("1.0.0", "", "hello", "extra"), "")
	if _, err := e.installer(Consent{}).Install(context.Background(), g.url); err != nil {
		t.Fatal(err)
	}
	g.commit(t, pluginFiles("2.0.0", "", "hello"), "")
	in := e.installer(Consent{})
	in.Force = true
	if _, err := in.Install(context.Background(), g.url); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(e.paths.CommandLink("extra")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dropped command's link kept: %v", err)
	}
	if out := runCommand(t, e, "hello"); out != "hello from v2.0.0" {
		t.Errorf("hello printed %q", out)
	}
	p, _ := e.entry(t, name)
	if !reflect.DeepEqual(p.Commands, []string{"hello"}) {
		t.Errorf("commands %v", p.Commands)
	}
}

// Installs of different plugins at once all land.
func TestConcurrentInstalls(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	const n = 6
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		dir := t.TempDir()
		files := pluginFiles("1.0.0", "", "c"+string(rune('a'+i)))
		files["plugin.toml"] = strings.Replace(files["plugin.toml"], "fledge-plugin-hello", "fledge-plugin-"+string(rune('a'+i)), 1)
		testutil.WriteTree(t, dir, files)
		go func() {
			in := e.installer(Consent{})
			in.Copy = true
			in.Log = nil // the shared log buffer is not safe for concurrent use
			_, err := in.Install(context.Background(), dir)
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	f, err := e.store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Plugins) != n {
		t.Errorf("%d plugins recorded, want %d", len(f.Plugins), n)
	}
	for i := 0; i < n; i++ {
		if _, err := os.Stat(e.paths.CommandLink("c" + string(rune('a'+i)))); err != nil {
			t.Errorf("link %d: %v", i, err)
		}
	}
}

// A plugin whose directory vanished can still be removed.
func TestRemoveWithMissingDir(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	g := newGitRepo(t)
	g.commit(t, pluginFiles("1.0.0", ""), "")
	if _, err := e.installer(Consent{}).Install(context.Background(), g.url); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(e.paths.PluginDir(name)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.remover().Remove(context.Background(), name); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	assertGone(t, e)
}

// A plugins.toml fledge cannot read stops every install before anything
// is fetched into place, and is left byte for byte.
func TestInstallRefusesUnreadableLockfile(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	for label, data := range map[string]string{
		"corrupt": "[[plugins]]\nname = \"x\"\nsource = \n",
		"future":  "format_version = 99\n",
	} {
		e := newEnv(t)
		if err := os.MkdirAll(e.paths.Root(), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, e.paths.PluginsFile(), data, 0o644)
		src := t.TempDir()
		testutil.WriteTree(t, src, pluginFiles("1.0.0", ""))
		before := e.snapshot(t, name)
		_, err := e.installer(Consent{Yes: true}).Install(context.Background(), src)
		var ce *lockfile.CorruptError
		var fe *lockfile.FutureError
		if !errors.As(err, &ce) && !errors.As(err, &fe) {
			t.Errorf("%s: Install = %v, want the lockfile's error", label, err)
		}
		if after := e.snapshot(t, name); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: state changed:\n%+v\n%+v", label, before, after)
		}
		if _, err := e.remover().Remove(context.Background(), name); err == nil {
			t.Errorf("%s: Remove succeeded over an unreadable lockfile", label)
		}
		if got, _ := os.ReadFile(e.paths.PluginsFile()); string(got) != data {
			t.Errorf("%s: plugins.toml changed to %q", label, got)
		}
	}
}

func TestInstallMissingRef(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	g := newGitRepo(t)
	g.commit(t, pluginFiles("1.0.0", ""), "v1.0.0")
	for _, ref := range []string{"v9.9.9", "no-such-branch", "0123456789abcdef0123456789abcdef01234567"} {
		_, err := e.installer(Consent{Yes: true}).Install(context.Background(), g.url+"@"+ref)
		var fe *FetchError
		if !errors.As(err, &fe) {
			t.Errorf("@%s: Install = %v, want a FetchError", ref, err)
		}
		if _, ok := e.entry(t, name); ok {
			t.Errorf("@%s: recorded", ref)
		}
		if s := names(t, e.paths.StagingDir()); len(s) != 0 {
			t.Errorf("@%s: staging left: %v", ref, s)
		}
	}
	if _, err := e.installer(Consent{Yes: true}).Install(context.Background(), g.url+"@-x"); err == nil {
		t.Error("@-x accepted")
	}
}

// Racing installs of one plugin, or of plugins claiming one command: one
// wins, the others fail cleanly, and what is recorded is what is on disk.
func TestRacingInstallsOneWinner(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	const n = 4
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = t.TempDir()
		files := pluginFiles("1.0."+string(rune('0'+i)), "")
		if i%2 == 1 { // same command "hello", different plugin names
			files["plugin.toml"] = strings.Replace(files["plugin.toml"], "fledge-plugin-hello", "fledge-plugin-rival"+string(rune('0'+i)), 1)
		}
		testutil.WriteTree(t, dirs[i], files)
	}
	errs := make(chan error, n)
	for _, d := range dirs {
		go func() {
			in := e.installer(Consent{})
			in.Copy, in.Log = true, nil
			_, err := in.Install(context.Background(), d)
			errs <- err
		}()
	}
	wins := 0
	for i := 0; i < n; i++ {
		err := testutil.Receive(t, "the concurrent installs to return", errs)
		var ce *ConflictError
		switch {
		case err == nil:
			wins++
		case errors.Is(err, ErrAlreadyInstalled), errors.As(err, &ce):
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d installs won, want exactly 1", wins)
	}
	f, err := e.store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Plugins) != 1 {
		t.Fatalf("%d entries recorded, want 1", len(f.Plugins))
	}
	p := f.Plugins[0]
	tr, err := treehash.Hash(e.paths.PluginDir(p.Name), treehash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Hash != p.TreeHash {
		t.Errorf("recorded tree %s, on disk %s", p.TreeHash, tr.Hash)
	}
	if out := runCommand(t, e, "hello"); out != "hello from v"+p.Version {
		t.Errorf("hello printed %q, recorded version %s", out, p.Version)
	}
	var trees []string
	for _, n := range names(t, e.paths.PluginsDir()) {
		if !strings.HasPrefix(n, ".") { // .staging, .trash and .data are fledge's
			trees = append(trees, n)
		}
	}
	if !reflect.DeepEqual(trees, []string{p.Name}) {
		t.Errorf("plugin trees %v, want only %s", trees, p.Name)
	}
	if s := names(t, e.paths.StagingDir()); len(s) != 0 {
		t.Errorf("staging left: %v", s)
	}
}

// A first install whose post_install fails leaves nothing, and for a live
// link never touches the source it linked.
func TestFirstInstallFailingPostInstallLeavesNothing(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	hook := "\n[hooks]\npost_install = \"echo half > half-done; exit 1\"\n"
	for _, mode := range []string{"link", "copy", "git"} {
		e := newEnv(t)
		src := t.TempDir()
		testutil.WriteTree(t, src, pluginFiles("1.0.0", hook))
		source := src
		if mode == "git" {
			g := newGitRepo(t)
			g.commit(t, pluginFiles("1.0.0", hook), "")
			source = g.url
		}
		srcBefore, err := treehash.Hash(src, treehash.Options{})
		if err != nil {
			t.Fatal(err)
		}
		in := e.installer(Consent{Grant: grants("hooks")})
		in.Copy = mode == "copy"
		before := e.snapshot(t, name)
		_, err = in.Install(context.Background(), source)
		var he *HookError
		if !errors.As(err, &he) {
			t.Errorf("%s: Install = %v, want the post_install HookError", mode, err)
		}
		after := e.snapshot(t, name)
		after.staging, before.staging = nil, nil
		if !reflect.DeepEqual(before, after) {
			t.Errorf("%s: state changed:\n%+v\n%+v", mode, before, after)
		}
		if _, err := os.Lstat(e.paths.TreeFile(name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: tree file left: %v", mode, err)
		}
		// The hook ran in the linked source, so its file is there; nothing
		// else of the source may change.
		os.Remove(filepath.Join(src, "half-done"))
		srcAfter, err := treehash.Hash(src, treehash.Options{})
		if err != nil || srcAfter.Hash != srcBefore.Hash {
			t.Errorf("%s: source changed by the rollback: %v", mode, err)
		}
	}
}

func TestInstallSourceErrors(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	tmp := t.TempDir()
	writeFile(t, filepath.Join(tmp, "afile"), "x", 0o644)
	if err := os.MkdirAll(filepath.Join(tmp, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		src   string
		check func(error) bool
	}{
		{filepath.Join(tmp, "nope"), func(err error) bool { var se *SourceError; return errors.As(err, &se) }},
		{filepath.Join(tmp, "afile"), func(err error) bool { var se *SourceError; return errors.As(err, &se) }},
		{filepath.Join(tmp, "empty"), func(err error) bool { return errors.Is(err, manifest.ErrNoManifest) }},
		{"some-registry-name", func(err error) bool { var se *SourceError; return errors.As(err, &se) }},
		{"-rf", func(err error) bool { var se *SourceError; return errors.As(err, &se) }},
		{"file://" + filepath.Join(tmp, "empty"), func(err error) bool { var fe *FetchError; return errors.As(err, &fe) }},
	}
	for _, tc := range cases {
		_, err := e.installer(Consent{Yes: true}).Install(context.Background(), tc.src)
		if err == nil || !tc.check(err) {
			t.Errorf("Install(%q) = %v (%T)", tc.src, err, err)
		}
	}
	if ents := names(t, e.paths.PluginsDir()); len(ents) != 0 {
		t.Errorf("plugins dir holds %v (an empty staging area is a leftover too)", ents)
	}
	if s := names(t, e.paths.StagingDir()); len(s) != 0 {
		t.Errorf("staging left: %v", s)
	}
}
