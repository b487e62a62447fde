package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/corvidlabs/fledge-go/manifest"
)

func TestMetadataKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.project, "fledge.toml"), "[project]\nname = \"myproj\"\n[tasks]\nbuild = \"go build\"\n", 0o644)
	repo, err := git.PlainInit(e.project, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	if _, err := wt.Add("fledge.toml"); err != nil {
		t.Fatal(err)
	}
	for i, msg := range []string{"first", "second\n\nbody"} {
		h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range [][]string{{"v1.2.0", "v1.10.0"}, {"v1.9.0", "v2.0.0-rc1"}}[i] {
			if _, err := repo.CreateTag(tag, h, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	writeFile(t, filepath.Join(e.project, "new.txt"), "x", 0o644)
	e.environ = append(e.environ, "GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=s", "OPENAI_API_KEY=k", "KEYBOARD=us", "AUTHOR=me", "FLEDGE_HOME=/h")

	dir := e.driver(manifest.Capabilities{Metadata: true},
		`?{"type":"metadata","id":"1","keys":["fledge_config","git_tags","git_status","git_log","env","nope"]}`)
	e.mustRun(Request{Command: "drive"})
	resps := e.responses(dir)
	v := resps[0]["value"].(map[string]any)
	wantCfg := map[string]any{"project": map[string]any{"name": "myproj"}, "tasks": map[string]any{"build": "go build"}}
	if !reflect.DeepEqual(v["fledge_config"], wantCfg) {
		t.Errorf("fledge_config = %v", v["fledge_config"])
	}
	if want := []any{"v2.0.0-rc1", "v1.10.0", "v1.9.0", "v1.2.0"}; !reflect.DeepEqual(v["git_tags"], want) {
		t.Errorf("git_tags = %v, want %v", v["git_tags"], want)
	}
	if want := []any{"?? go.mod", "?? new.txt"}; !reflect.DeepEqual(v["git_status"], want) {
		t.Errorf("git_status = %v, want %v", v["git_status"], want)
	}
	log, _ := v["git_log"].([]any)
	if len(log) != 2 || len(log[0].(string)) != 7+1+len("second") || log[0].(string)[8:] != "second" {
		t.Errorf("git_log = %v", v["git_log"])
	}
	env := v["env"].(map[string]any)
	for _, k := range []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "FLEDGE_HOME"} {
		if _, ok := env[k]; ok {
			t.Errorf("env leaks %s", k)
		}
	}
	if env["KEYBOARD"] != "us" || env["AUTHOR"] != "me" || env["PATH"] == nil {
		t.Errorf("env dropped harmless variables: %v", env)
	}
	if _, ok := v["nope"]; !ok || v["nope"] != nil {
		t.Errorf("unknown key: %v", v)
	}
	b, _ := json.Marshal(resps[0])
	if len(b) > 64<<10 {
		t.Errorf("response is %d bytes", len(b))
	}
	_ = os.Remove
}
