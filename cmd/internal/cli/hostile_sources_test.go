//go:build unix

package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// A plugin.toml that is not a regular file (a FIFO a reader would block
// on, a device that never ends) is refused, linked or copied, without
// hanging.
func TestManifestSpecialFilesRefused(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	special := map[string]func(p string) error{
		"fifo": func(p string) error { return syscall.Mkfifo(p, 0o644) },
	}
	if os.Geteuid() == 0 {
		// /dev/zero: reading it never ends.
		special["device"] = func(p string) error {
			return syscall.Mknod(p, syscall.S_IFCHR|0o644, int(1<<8|5))
		}
	} else {
		t.Log("not root: the character-device case is not run")
	}
	for kind, mk := range special {
		dir := filepath.Join(e.work, kind)
		testutil.WriteTree(t, dir, map[string]string{"bin/x": "#!/bin/sh\n"})
		if err := mk(filepath.Join(dir, "plugin.toml")); err != nil {
			t.Fatal(err)
		}
		for _, extra := range [][]string{nil, {"--copy"}} {
			args := append([]string{"plugins", "install", "./" + kind}, extra...)
			// Read as the manifest it is not a regular file; walked as a
			// tree (--copy) it is a special file: both refuse it.
			r := e.run(append(args, "--json")...)
			doc := hJSON(t, r)
			code, msg := hStr(doc, "error", "code"), hStr(doc, "error", "message")
			if r.code != 1 || (code != "invalid_manifest" && code != "unsafe_plugin") {
				t.Errorf("%s %v: want invalid_manifest or unsafe_plugin\n%v", kind, extra, r)
			}
			if !strings.Contains(msg, "not a regular file") && !strings.Contains(msg, "special file") {
				t.Errorf("%s %v: message %q does not say why", kind, extra, msg)
			}
		}
		r := e.run("plugins", "validate", "./"+kind, "--json")
		if r.code != 1 {
			t.Errorf("validate of a %s manifest: want exit 1\n%v", kind, r)
		}
	}
	if n := e.names(); len(n) != 0 {
		t.Errorf("installed %v", n)
	}
	e.noLeftovers()
}

// Huge and deeply nested manifests are refused quickly, without a stack
// overflow: fledge exits 1 with an error, never crashes.
func TestManifestHugeAndDeepRefused(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	head := "[plugin]\nname = \"fledge-plugin-h\"\nversion = \"1.0.0\"\n"
	cases := map[string]string{
		"10MB comment":   head + "# " + strings.Repeat("x", 10<<20) + "\n",
		"10MB string":    head + "description = \"" + strings.Repeat("x", 10<<20) + "\"\n",
		"deep arrays":    head + "x = " + strings.Repeat("[", 100000) + "\n",
		"deep arrays ok": head + "x = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n",
		"deep inline":    head + "x = " + strings.Repeat("{a=", 100000) + "1" + strings.Repeat("}", 100000) + "\n",
		// Not nesting a parser recurses on: 50,000 dotted table levels
		// (100 KB, under the size bound) may be accepted as an unknown key;
		// it must only not crash.
		"deep tables": head + "[" + strings.Repeat("a.", 50000) + "b]\n",
	}
	var took []string
	i := 0
	for name, text := range cases {
		i++
		dir := filepath.Join(e.work, "m", string(rune('a'+i)))
		testutil.WriteTree(t, dir, map[string]string{"plugin.toml": text})
		for _, args := range [][]string{
			{"plugins", "validate", dir, "--json"},
			{"plugins", "install", dir, "--copy", "--json"},
		} {
			r := e.run(args...)
			took = append(took, fmt.Sprintf("%s/%s %v", name, args[1], r.took.Round(time.Millisecond)))
			if name == "deep tables" && r.code == 0 {
				continue
			}
			if r.code != 1 || r.signal != 0 {
				t.Errorf("%s: %s: want a clean exit 1\n%.2000s", name, args[1], r.String())
				continue
			}
			if bytes.Contains(r.err, []byte("goroutine ")) || bytes.Contains(r.err, []byte("stack overflow")) {
				t.Errorf("%s: %s crashed\n%.2000s", name, args[1], r.err)
			}
			hJSON(t, r)
		}
	}
	sort.Strings(took)
	t.Logf("wall time per process: %s", strings.Join(took, "; "))
	if n := e.names(); len(n) > 1 || (len(n) == 1 && n[0] != "fledge-plugin-h") {
		t.Errorf("installed %v", n)
	}
	e.noLeftovers()
}

// A repository with a submodule installs; the submodule is never fetched.
func TestSubmoduleNeverFetched(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	subCommit := e.repo("sub", map[string]string{"SUBMODULE_SECRET.txt": "fetched!\n"})
	dir := filepath.Join(e.gh, "o", "fledge-plugin-sm")
	files := hPlugin("fledge-plugin-sm", "1.0.0", "")
	files[".gitmodules"] = "[submodule \"vendor/sub\"]\n\tpath = vendor/sub\n\turl = file://" + filepath.Join(e.gh, "o", "sub") + "\n"
	testutil.WriteTree(t, dir, files)
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	idx, err := r.Storer.Index()
	if err != nil {
		t.Fatal(err)
	}
	idx.Entries = append(idx.Entries, &index.Entry{Name: "vendor/sub", Mode: filemode.Submodule, Hash: plumbing.NewHash(subCommit)})
	if err := r.Storer.SetIndex(idx); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("with a submodule", &git.CommitOptions{Author: fixtureSig(0), Committer: fixtureSig(0)}); err != nil {
		t.Fatal(err)
	}
	// The fixture really has a gitlink.
	c, _ := r.CommitObject(mustHead(t, r))
	tree, _ := c.Tree()
	if ent, err := tree.FindEntry("vendor/sub"); err != nil || ent.Mode != filemode.Submodule {
		t.Fatalf("fixture: no gitlink at vendor/sub (%v)", err)
	}

	e.ok("plugins", "install", "o/fledge-plugin-sm", "--json")
	e.verified("fledge-plugin-sm", "sm")
	filepath.Walk(e.fh, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.Contains(fi.Name(), "SUBMODULE_SECRET") {
			t.Errorf("the submodule was fetched: %s", p)
		}
		return nil
	})
	if ents, _ := os.ReadDir(filepath.Join(e.fh, "plugins", "fledge-plugin-sm", "vendor", "sub")); len(ents) != 0 {
		t.Errorf("vendor/sub has content: %v", ents)
	}
	e.noLeftovers()
}

// Sources and refs that read as git options or run commands are refused
// as invalid sources, and nothing they name is ever executed.
func TestOptionLikeSourcesRefused(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.repo("fledge-plugin-a", hPlugin("fledge-plugin-a", "1.0.0", ""))
	repo := "file://" + filepath.Join(e.gh, "o", "fledge-plugin-a")
	marker := filepath.Join(e.work, "pwned")
	touch := "touch " + marker
	for _, src := range []string{
		"o/fledge-plugin-a@--upload-pack=" + touch,
		"o/fledge-plugin-a@-oProxyCommand=" + touch,
		repo + "@--upload-pack=" + touch,
		"--upload-pack=" + touch,
		"-oProxyCommand=" + touch,
		"ssh://-oProxyCommand=" + strings.ReplaceAll(touch, " ", "%20") + "/x",
		"git@-oProxyCommand=" + strings.ReplaceAll(touch, " ", "_") + ":o/r",
		"ext::sh -c " + strings.ReplaceAll(touch, " ", "% "),
		"ext::" + touch,
		"fd::0",
	} {
		r := e.run("plugins", "install", "--json", "--", src)
		code := hStr(hJSON(t, r), "error", "code")
		if r.code != 1 || code != "invalid_source" {
			t.Errorf("%q: want invalid_source, got %q\n%v", src, code, r)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%q executed a command", src)
		}
	}
	if n := e.names(); len(n) != 0 {
		t.Errorf("installed %v", n)
	}
}

// Credentials in a source URL never reach any output or plugins.toml.
func TestCredentialsNeverShown(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	const secret = "s3cretTOKEN"
	for _, src := range []string{
		// A token alone as the user: the usual form for GitHub tokens,
		// which go-git's errors repeat.
		"https://" + secret + "@127.0.0.1:1/o/fledge-plugin-x@v1.0.0",
		"https://" + secret + "@127.0.0.1:1/o/fledge-plugin-x",
		"https://user:" + secret + "@127.0.0.1:1/o/fledge-plugin-x",
		"https://user:" + secret + "@127.0.0.1:1/o/fledge-plugin-x.git@main",
		"ssh://git:" + secret + "@127.0.0.1:1/o/fledge-plugin-x",
	} {
		for _, json := range []bool{false, true} {
			args := []string{"plugins", "install", src}
			if json {
				args = append(args, "--json")
			}
			r := e.run(args...)
			if r.code != 1 {
				t.Errorf("%s: want a failure\n%v", src, r)
			}
			if bytes.Contains(r.out, []byte(secret)) || bytes.Contains(r.err, []byte(secret)) {
				t.Errorf("the credential was printed\n%v", r)
			}
		}
	}
	if bytes.Contains(e.pluginsToml(), []byte(secret)) {
		t.Error("plugins.toml holds the credential")
	}
}

// sync's errors name an entry's source without its credentials.
func TestSyncNeverShowsCredentials(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	const secret = "s3cretTOKEN"
	team := filepath.Join(e.work, "team.toml")
	os.WriteFile(team, []byte(`format_version = 1

[[plugins]]
name = "fledge-plugin-x"
source = "https://user:`+secret+`@127.0.0.1:1/o/fledge-plugin-x"
url = "https://user:`+secret+`@127.0.0.1:1/o/fledge-plugin-x"
version = "1.0.0"
installed = "2026-01-01T00:00:00Z"
commands = []
kind = "git"
commit = "`+strings.Repeat("a", 40)+`"
`), 0o644)
	for _, args := range [][]string{{"plugins", "sync", "--file", team}, {"plugins", "sync", "--file", team, "--json"}} {
		r := e.run(args...)
		if r.code != 1 || bytes.Contains(r.out, []byte(secret)) || bytes.Contains(r.err, []byte(secret)) {
			t.Errorf("sync printed the credential\n%v", r)
		}
	}
}
