package install

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/treehash"
)

// installed installs a fresh copy of the hello plugin from a git repo and
// returns its environment and recorded entry.
func installed(t *testing.T) (*env, lockfile.Plugin) {
	t.Helper()
	e := newEnv(t)
	g := newGitRepo(t)
	files := pluginFiles("1.0.0", "")
	files["lib/data.txt"] = "data"
	g.commit(t, files, "")
	res, err := e.installer(Consent{}).Install(context.Background(), g.url)
	if err != nil {
		t.Fatalf("Install: %v\n%s", err, e.log)
	}
	return e, res.Entry
}

func TestVerify(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	cases := []struct {
		name     string
		change   func(t *testing.T, dir string, p *lockfile.Plugin, e *env)
		status   string
		failed   bool
		manifest bool
		diff     treehash.Diff
		wantErr  bool
	}{
		{name: "untouched", change: func(*testing.T, string, *lockfile.Plugin, *env) {}, status: VerifyOK},
		{name: "edited file", change: func(t *testing.T, dir string, _ *lockfile.Plugin, _ *env) {
			writeFile(t, filepath.Join(dir, "lib/data.txt"), "tampered", 0o644)
		}, status: VerifyModified, failed: true, diff: treehash.Diff{Modified: []string{"lib/data.txt"}, Added: []string{}, Missing: []string{}}},
		{name: "exec bit", change: func(t *testing.T, dir string, _ *lockfile.Plugin, _ *env) {
			os.Chmod(filepath.Join(dir, "VERSION"), 0o755)
		}, status: VerifyModified, failed: true, diff: treehash.Diff{Modified: []string{"VERSION"}, Added: []string{}, Missing: []string{}}},
		{name: "added and removed", change: func(t *testing.T, dir string, _ *lockfile.Plugin, _ *env) {
			writeFile(t, filepath.Join(dir, "bin/extra"), "#!/bin/sh\n", 0o755)
			os.Remove(filepath.Join(dir, "lib/data.txt"))
		}, status: VerifyModified, failed: true, diff: treehash.Diff{Modified: []string{}, Added: []string{"bin/extra"}, Missing: []string{"lib/data.txt"}}},
		{name: "manifest edited", change: func(t *testing.T, dir string, _ *lockfile.Plugin, _ *env) {
			data, _ := os.ReadFile(filepath.Join(dir, "plugin.toml"))
			writeFile(t, filepath.Join(dir, "plugin.toml"), string(data)+"\n[capabilities]\nexec = true\n", 0o644)
		}, status: VerifyModified, failed: true, manifest: true, diff: treehash.Diff{Modified: []string{"plugin.toml"}, Added: []string{}, Missing: []string{}}},
		{name: "directory gone", change: func(t *testing.T, dir string, _ *lockfile.Plugin, _ *env) {
			os.RemoveAll(dir)
		}, status: VerifyMissing, failed: true, wantErr: true},
		{name: "unsafe tree", change: func(t *testing.T, dir string, _ *lockfile.Plugin, _ *env) {
			if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
				t.Skip(err)
			}
		}, status: VerifyError, failed: true, wantErr: true},
		{name: "no recorded hash (Rust entry)", change: func(t *testing.T, dir string, p *lockfile.Plugin, _ *env) {
			p.TreeHash = ""
			writeFile(t, filepath.Join(dir, "lib/data.txt"), "anything", 0o644)
		}, status: VerifyUnrecorded},
		{name: "recorded file list unreadable", change: func(t *testing.T, dir string, p *lockfile.Plugin, e *env) {
			writeFile(t, e.paths.TreeFile(p.Name), "{not json", 0o644)
			writeFile(t, filepath.Join(dir, "lib/data.txt"), "tampered", 0o644)
		}, status: VerifyModified, failed: true, wantErr: true, diff: treehash.Diff{Modified: []string{}, Added: []string{}, Missing: []string{}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, p := installed(t)
			dir := e.paths.PluginDir(p.Name)
			tc.change(t, dir, &p, e)
			r := Verify(e.paths, &p)
			if r.Status != tc.status || r.Failed() != tc.failed || r.ManifestChanged != tc.manifest || (r.Err != nil) != tc.wantErr {
				t.Errorf("Verify = status %s failed %v manifest %v err %v; want %s %v %v err %v",
					r.Status, r.Failed(), r.ManifestChanged, r.Err, tc.status, tc.failed, tc.manifest, tc.wantErr)
			}
			if r.Name != p.Name || r.Recorded != p.TreeHash {
				t.Errorf("result names %s / %s", r.Name, r.Recorded)
			}
			if tc.diff.Modified != nil && !reflect.DeepEqual(r.Diff, tc.diff) {
				t.Errorf("Diff = %+v, want %+v", r.Diff, tc.diff)
			}
			if r.Status == VerifyOK && r.Current != p.TreeHash {
				t.Errorf("ok with current %s != recorded %s", r.Current, p.TreeHash)
			}
		})
	}
}

// A live-linked plugin is expected to change: linked, never failed, with
// the differences still listed.
func TestVerifyLinked(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	src := t.TempDir()
	testutil.WriteTree(t, src, pluginFiles("1.0.0", ""))
	res, err := e.installer(Consent{}).Install(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "VERSION"), "1.0.1", 0o644)
	r := Verify(e.paths, &res.Entry)
	if r.Status != VerifyLinked || r.Failed() || !reflect.DeepEqual(r.Diff.Modified, []string{"VERSION"}) {
		t.Errorf("Verify = %+v", r)
	}
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	if r := Verify(e.paths, &res.Entry); !r.Failed() || r.Err == nil || (r.Status != VerifyError && r.Status != VerifyMissing) {
		t.Errorf("source gone: Verify = %+v, want a failure", r)
	}
}
