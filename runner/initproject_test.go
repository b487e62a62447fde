package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/corvidlabs/fledge-go/manifest"
)

// readInit decodes the init message the driver plugin saved.
func readInit(t *testing.T, dir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "init.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("init.json: %v\n%s", err, data)
	}
	return m
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Run from a monorepo's svc/ directory, a plugin sees svc/ as the project,
// as under the Rust fledge (the docker plugin builds svc/'s Dockerfile, not
// the repository's), with the repository's git state, and exec runs there
// by default. The repository's top level is still inside; above it is not.
func TestInitProjectIsWhereFledgeRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mono := filepath.Join(e.dir, "work", "mono")
	svc := filepath.Join(mono, "svc")
	writeFile(t, filepath.Join(mono, "Cargo.toml"), "", 0o644)
	writeFile(t, filepath.Join(mono, "Dockerfile"), "FROM root\n", 0o644)
	writeFile(t, filepath.Join(svc, "package.json"), "{}", 0o644)
	writeFile(t, filepath.Join(svc, "go.mod"), "module svc\n", 0o644)
	writeFile(t, filepath.Join(svc, "Dockerfile"), "FROM svc\n", 0o644)
	if _, err := git.PlainInit(mono, false); err != nil {
		t.Fatal(err)
	}
	r := e.runner()
	r.Getwd = func() (string, error) { return svc, nil }
	dir := e.driver(manifest.Capabilities{Exec: true},
		`?{"type":"exec","id":"1","command":"pwd; cat Dockerfile"}`,
		`?{"type":"exec","id":"2","command":"pwd","cwd":".."}`,
		`?{"type":"exec","id":"3","command":"pwd","cwd":"../.."}`,
	)
	if _, err := e.runWith(r, Request{Command: "drive"}); err != nil {
		t.Fatalf("%v\n%s", err, e.stderr)
	}
	p := readInit(t, dir)["project"].(map[string]any)
	if got, want := keys(p), []string{"git", "language", "languages", "name", "root"}; !reflect.DeepEqual(got, want) {
		t.Errorf("project keys %v, want %v", got, want)
	}
	if p["name"] != "svc" || p["root"] != svc || p["language"] != "node" || !reflect.DeepEqual(p["languages"], []any{"node", "go"}) {
		t.Errorf("project = %v, want svc/ (node, then go)", p)
	}
	want := map[string]any{"branch": "master", "dirty": true, "remote": "origin", "remote_url": "", "root": mono}
	if !reflect.DeepEqual(p["git"], want) {
		t.Errorf("git = %v, want %v (Rust's keys with no remote, and fledge's root)", p["git"], want)
	}
	res := e.responses(dir)
	value := func(i int) map[string]any { return res[i]["value"].(map[string]any) }
	if v := value(0); v["stdout"] != svc+"\nFROM svc\n" {
		t.Errorf("default exec cwd: %v, want %s", v, svc)
	}
	if v := value(1); v["stdout"] != mono+"\n" {
		t.Errorf("exec in the work tree's top level: %v", v)
	}
	if v := value(2); v["code"] != float64(execCodeRefused) || v["stdout"] != "" {
		t.Errorf("exec above the work tree: %v, want refused", v)
	}
}

// init.project is never null where fledge can name its directory: the home
// directory is a project too (as under Rust), with git null when the only
// repository around is a dotfiles repository in $HOME; a directory below
// $HOME does not report that repository as its git state either.
func TestInitOutsideARepository(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "goecho", manifest.Capabilities{})
	r := e.runner()
	r.Getwd = func() (string, error) { return r.UserHome, nil }
	mustMkdir(t, r.UserHome)
	if _, err := git.PlainInit(r.UserHome, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.runWith(r, Request{Command: "goecho", Args: []string{"echo"}}); err != nil {
		t.Fatal(err)
	}
	p := decodeEcho(t, e.stdout.String())["init"].(map[string]any)["project"]
	want := map[string]any{"name": "home", "root": r.UserHome, "language": "generic", "languages": []any{}, "git": nil}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("project in $HOME = %v, want %v", p, want)
	}
	app := filepath.Join(r.UserHome, "code", "app")
	writeFile(t, filepath.Join(app, "requirements.txt"), "", 0o644)
	r.Getwd = func() (string, error) { return app, nil }
	e.stdout.Reset()
	if _, err := e.runWith(r, Request{Command: "goecho", Args: []string{"echo"}}); err != nil {
		t.Fatal(err)
	}
	p = decodeEcho(t, e.stdout.String())["init"].(map[string]any)["project"]
	want = map[string]any{"name": "app", "root": app, "language": "generic", "languages": []any{}, "git": nil}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("project in ~/code/app = %v, want %v", p, want)
	}
	// Where the directory cannot be named, project is null, as in Rust.
	r.Getwd = func() (string, error) { return filepath.Join(e.dir, "gone"), nil }
	e.stdout.Reset()
	if _, err := e.runWith(r, Request{Command: "goecho", Args: []string{"echo"}}); err != nil {
		t.Fatal(err)
	}
	if p := decodeEcho(t, e.stdout.String())["init"].(map[string]any)["project"]; p != nil {
		t.Errorf("project in a missing directory = %v, want null", p)
	}
}
