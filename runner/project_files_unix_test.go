//go:build unix

package runner

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
)

// fledge_config is the project's fledge.toml, read as a regular file
// inside the project: a link out of it (to a credentials file, a device),
// a named pipe or a huge file is answered with an empty config and one
// warning, and nothing blocks. Each case runs a real protocol plugin,
// granted metadata, that asks twice.
func TestFledgeConfigIsAProjectFile(t *testing.T) {
	t.Parallel()
	const secret = "token = \"cio_SECRET\"\n"
	empty := map[string]any{}
	cases := []struct {
		name  string
		setup func(t *testing.T, project, outside string)
		want  any    // the config the plugin sees
		warn  string // in the one warning shown, or "" for none
	}{
		{"regular file", func(t *testing.T, p, _ string) {
			writeFile(t, filepath.Join(p, "fledge.toml"), "[tasks]\nbuild = \"make\"\n", 0o644)
		}, map[string]any{"tasks": map[string]any{"build": "make"}}, ""},
		{"link inside the project", func(t *testing.T, p, _ string) {
			writeFile(t, filepath.Join(p, "config", "fledge.toml"), "[tasks]\nbuild = \"make\"\n", 0o644)
			relink(t, "config/fledge.toml", filepath.Join(p, "fledge.toml"))
		}, map[string]any{"tasks": map[string]any{"build": "make"}}, ""},
		{"missing", func(t *testing.T, p, _ string) {
			os.Remove(filepath.Join(p, "fledge.toml"))
		}, nil, ""},
		{"link to a credentials file outside", func(t *testing.T, p, out string) {
			writeFile(t, filepath.Join(out, "credentials.toml"), secret, 0o600)
			relink(t, "../../outside/credentials.toml", filepath.Join(p, "fledge.toml"))
		}, empty, "leads outside"},
		{"absolute link outside", func(t *testing.T, p, out string) {
			writeFile(t, filepath.Join(out, "credentials.toml"), secret, 0o600)
			relink(t, filepath.Join(out, "credentials.toml"), filepath.Join(p, "fledge.toml"))
		}, empty, "leads outside"},
		{"link to a device", func(t *testing.T, p, _ string) {
			relink(t, "/dev/zero", filepath.Join(p, "fledge.toml"))
		}, empty, "leads outside"},
		{"named pipe", func(t *testing.T, p, _ string) {
			os.Remove(filepath.Join(p, "fledge.toml"))
			if err := syscall.Mkfifo(filepath.Join(p, "fledge.toml"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, empty, "named pipe"},
		{"directory", func(t *testing.T, p, _ string) {
			os.Remove(filepath.Join(p, "fledge.toml"))
			mustMkdir(t, filepath.Join(p, "fledge.toml"))
		}, empty, "directory"},
		{"huge", func(t *testing.T, p, _ string) {
			if err := os.Truncate(filepath.Join(p, "fledge.toml"), 4<<30); err != nil {
				t.Fatal(err)
			}
		}, empty, "larger than"},
		{"not TOML", func(t *testing.T, p, _ string) {
			writeFile(t, filepath.Join(p, "fledge.toml"), "[tasks\n", 0o644)
		}, nil, "not valid TOML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			outside := filepath.Join(e.dir, "outside")
			mustMkdir(t, outside)
			c.setup(t, e.project, outside)
			dir := e.driver(manifest.Capabilities{Metadata: true},
				`?{"type":"metadata","id":"1","keys":["fledge_config"]}`,
				`?{"type":"metadata","id":"2","keys":["fledge_config"]}`)
			done := make(chan struct{})
			go func() {
				defer close(done)
				e.mustRun(Request{Command: "drive"})
			}()
			select {
			case <-done:
			case <-time.After(45 * time.Second):
				t.Fatal("the run did not return: reading fledge.toml blocked")
			}
			resps := e.responses(dir)
			if len(resps) != 2 {
				t.Fatalf("responses: %v", resps)
			}
			for _, r := range resps {
				v, _ := r["value"].(map[string]any)
				if got, ok := v["fledge_config"]; !ok || !reflect.DeepEqual(got, c.want) {
					t.Errorf("fledge_config = %#v, want %#v", got, c.want)
				}
			}
			if strings.Contains(e.rawResponses(dir), "cio_SECRET") {
				t.Error("the plugin was sent the file outside the project")
			}
			warns := e.ui.warnings()
			switch {
			case c.warn == "" && warns != "":
				t.Errorf("warned: %s", warns)
			case c.warn != "" && (len(e.ui.warns) != 1 || !strings.Contains(warns, c.warn) || !strings.Contains(warns, "fledge.toml")):
				t.Errorf("warnings %q, want exactly one naming fledge.toml and saying %q", e.ui.warns, c.warn)
			}
		})
	}
}

// relink replaces path with a symlink to target.
func relink(t *testing.T, target, path string) {
	t.Helper()
	os.Remove(path)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// A project whose .git holds a named pipe where HEAD should be (a hostile
// archive, say), on which git waits forever, does not hang the run: git is
// stopped at its timeout and the git state fails closed, the worktree
// dirty and the metadata keys null, with the reason shown.
func TestProjectGitPipeDoesNotHang(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mustMkdir(t, filepath.Join(e.project, ".git", "refs", "heads"))
	mustMkdir(t, filepath.Join(e.project, ".git", "objects"))
	if err := syscall.Mkfifo(filepath.Join(e.project, ".git", "HEAD"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := e.driver(manifest.Capabilities{Metadata: true},
		`?{"type":"metadata","id":"1","keys":["git_tags","git_log","git_status"]}`)
	r := e.runner()
	r.Timeouts.Git = time.Second
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := e.runWith(r, Request{Command: "drive"}); err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(45 * time.Second):
		t.Fatal("the run did not return: reading .git/HEAD blocked")
	}
	resps := e.responses(dir)
	if len(resps) != 1 {
		t.Fatalf("responses: %v", resps)
	}
	v, _ := resps[0]["value"].(map[string]any)
	for _, k := range []string{"git_tags", "git_log", "git_status"} {
		if got, ok := v[k]; !ok || got != nil {
			t.Errorf("%s = %#v, want null", k, got)
		}
	}
	if w := e.ui.warnings(); !strings.Contains(w, "git_status answered with null") || !strings.Contains(w, "no answer within 1s") {
		t.Errorf("warnings: %q", w)
	}
}
