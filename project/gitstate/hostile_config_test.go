package gitstate

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A repository's config can name commands that git runs: an fsmonitor
// hook, a clean filter (run by git status for a file whose stat data
// changed, here every file of a copied repository), gpg for
// log.showSignature; and a submodule's config the same. None of them may
// run when fledge reads the state, and the answers stay git's.
func TestHostileRepositoryConfigRunsNothing(t *testing.T) {
	t.Parallel()
	requireGit(t)
	if runtime.GOOS == "windows" {
		t.Skip("the commands are shell scripts")
	}
	env := testEnv(t)
	marks := t.TempDir()
	hook := func(name string) string {
		return "touch " + filepath.Join(marks, name) + "; cat"
	}
	// gpg.program names a program, not a shell command.
	gpg := filepath.Join(t.TempDir(), "gpg")
	if err := os.WriteFile(gpg, []byte("#!/bin/sh\ntouch "+filepath.Join(marks, "gpg")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := newRepo(t, env)
	write(t, filepath.Join(sub, ".gitattributes"), "*.txt filter=subevil\n")
	git(t, env, sub, "add", "-A")
	git(t, env, sub, "commit", "-q", "-m", "attrs")

	dir := newRepo(t, env)
	git(t, env, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mod")
	write(t, filepath.Join(dir, ".gitattributes"), "*.txt filter=evil\n")
	git(t, env, dir, "add", "-A")
	git(t, env, dir, "commit", "-q", "-m", "submodule")
	for _, kv := range [][2]string{
		{"core.fsmonitor", hook("fsmonitor")},
		{"filter.evil.clean", hook("clean")},
		{"filter.evil.process", hook("process")},
		{"filter.evil.required", "true"},
		{"log.showSignature", "true"},
		{"gpg.program", gpg},
	} {
		git(t, env, dir, "config", kv[0], kv[1])
	}
	// A signed commit on top, so that showing signatures would run gpg.
	head := strings.TrimSpace(git(t, env, dir, "rev-parse", "HEAD"))
	tree := strings.TrimSpace(git(t, env, dir, "rev-parse", "HEAD^{tree}"))
	commit := "tree " + tree + "\nparent " + head + "\nauthor t <t@example.com> 1700000000 +0000\ncommitter t <t@example.com> 1700000000 +0000\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n"
	obj := filepath.Join(t.TempDir(), "commit")
	write(t, obj, commit)
	signed := strings.TrimSpace(git(t, env, dir, "hash-object", "-t", "commit", "-w", obj))
	git(t, env, dir, "update-ref", "HEAD", signed)
	subDir := filepath.Join(dir, "mod")
	git(t, env, subDir, "config", "filter.subevil.clean", hook("subclean"))
	git(t, env, subDir, "config", "core.fsmonitor", hook("subfsmonitor"))
	// Every tracked file's stat data changes (as in a copy), so git
	// must look at contents: with the filters, by running them.
	touch(t, dir)

	r := open(t, env, dir)
	st := r.State(context.Background())
	status, err := r.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	log, err := r.Log(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ran, _ := os.ReadDir(marks); len(ran) > 0 {
		var names []string
		for _, e := range ran {
			names = append(names, e.Name())
		}
		t.Fatalf("the repository's config ran: %s", strings.Join(names, ", "))
	}
	// Unchanged content, unfiltered: git with the filters disabled
	// says clean, and so does fledge.
	if st.Dirty || len(status) != 0 || st.Warning != "" {
		t.Errorf("State = %+v, Status = %q", st, status)
	}
	if len(log) != 3 || !strings.HasSuffix(log[0], " signed") || strings.Contains(strings.Join(log, "\n"), "gpg") {
		t.Errorf("Log = %q", log)
	}
}

// touch sets every file's times to now, below dir, .git left alone.
func touch(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				return err
			}
			b := make([]byte, 1)
			if n, _ := f.Read(b); n == 1 {
				_, err = f.WriteAt(b, 0) // same content, new mtime and ctime
			}
			f.Close()
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A filter driver whose name git's -c cannot carry is refused: the state
// fails closed rather than run it.
func TestFilterDriverThatCannotBeDisabled(t *testing.T) {
	t.Parallel()
	requireGit(t)
	env := testEnv(t)
	dir := newRepo(t, env)
	git(t, env, dir, "config", "filter.a=b.clean", "false")
	st := open(t, env, dir).State(context.Background())
	if !st.Dirty || !strings.Contains(st.Warning, "cannot disable") {
		t.Errorf("State = %+v", st)
	}
}
