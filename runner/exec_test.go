package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/protocol"
)

// execResults runs the driver with exec requests and decodes the results.
func execResults(t *testing.T, e *testEnv, r *Runner, reqs ...string) []protocol.ExecResult {
	t.Helper()
	lines := make([]string, len(reqs))
	for i, q := range reqs {
		lines[i] = "?" + q
	}
	dir := e.driver(manifest.Capabilities{Exec: true}, lines...)
	if _, err := e.runWith(r, Request{Command: "drive"}); err != nil {
		t.Fatalf("%v\n%s", err, e.stderr)
	}
	var out []protocol.ExecResult
	for _, m := range e.responses(dir) {
		b, _ := json.Marshal(m["value"])
		var res protocol.ExecResult
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		out = append(out, res)
	}
	if len(out) != len(reqs) {
		t.Fatalf("%d results for %d requests", len(out), len(reqs))
	}
	return out
}

func TestExecBasicsAndConfinement(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mustMkdir(t, filepath.Join(e.project, "sub"))
	outside := filepath.Join(e.dir, "outside")
	mustMkdir(t, outside)
	if err := os.Symlink(outside, filepath.Join(e.project, "escape")); err != nil {
		t.Fatal(err)
	}
	e.environ = append(e.environ, "GITHUB_TOKEN=ghp_abc", "FLEDGE_HOME=/x", "MY_SETTING=ok", "DATABASE_URL=postgres://u:p@h/db")
	res := execResults(t, e, e.runner(),
		`{"type":"exec","id":"1","command":"echo out; echo err >&2; exit 3"}`,
		`{"type":"exec","id":"2","command":"pwd"}`,
		`{"type":"exec","id":"3","command":"pwd","cwd":"sub"}`,
		`{"type":"exec","id":"4","command":"pwd","cwd":"../.."}`,
		`{"type":"exec","id":"5","command":"pwd","cwd":"/"}`,
		`{"type":"exec","id":"6","command":"pwd","cwd":"escape"}`,
		`{"type":"exec","id":"7","command":"pwd","cwd":"`+e.paths.PluginDir("fledge-plugin-drive")+`"}`,
		`{"type":"exec","id":"8","command":"pwd","cwd":"`+e.paths.Root()+`"}`,
		`{"type":"exec","id":"9","command":"cat; echo eof"}`,
		`{"type":"exec","id":"10","command":"env"}`,
		`{"type":"exec","id":"11","command":"pwd","cwd":"missing"}`,
	)
	if r := res[0]; r.Code != 3 || r.Stdout != "out\n" || r.Stderr != "err\n" {
		t.Errorf("exec 1 = %+v", r)
	}
	if res[1].Stdout != e.project+"\n" || res[2].Stdout != filepath.Join(e.project, "sub")+"\n" {
		t.Errorf("default cwd %q, sub %q", res[1].Stdout, res[2].Stdout)
	}
	for _, i := range []int{3, 4, 5, 7, 10} {
		if res[i].Code != execCodeRefused || res[i].Stdout != "" || res[i].Stderr == "" {
			t.Errorf("exec %d was not refused: %+v", i+1, res[i])
		}
	}
	if real, _ := filepath.EvalSymlinks(e.paths.PluginDir("fledge-plugin-drive")); res[6].Stdout != real+"\n" {
		t.Errorf("plugin dir cwd: %+v", res[6])
	}
	if res[8].Stdout != "eof\n" {
		t.Errorf("stdin not closed: %+v", res[8])
	}
	env := res[9].Stdout
	if !strings.Contains(env, "MY_SETTING=ok") || strings.Contains(env, "ghp_abc") || strings.Contains(env, "FLEDGE_") || strings.Contains(env, "postgres") {
		t.Errorf("exec env not filtered:\n%s", env)
	}
}

func TestExecTimeoutOutputAndGrandchildren(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.runner()
	r.Limits.ExecOutput = 1 << 20
	res := execResults(t, e, r,
		`{"type":"exec","id":"1","command":"sleep 30 & sleep 30; echo never","timeout":0.3}`,
		`{"type":"exec","id":"2","command":"head -c 5000000 /dev/zero | tr '\\0' a; echo done >&2"}`,
		`{"type":"exec","id":"3","command":"(sleep 30 &) ; echo left"}`,
		`{"type":"exec","id":"4","command":"echo ok","timeout":100000}`,
	)
	if r := res[0]; r.Code != 124 || strings.Contains(r.Stdout, "never") || !strings.Contains(r.Stderr, "timed out") {
		t.Errorf("timeout: %+v", r)
	}
	if r := res[1]; r.Code != 0 || !strings.HasPrefix(r.Stdout, strings.Repeat("a", 1000)) || !strings.Contains(r.Stdout, "output truncated") || len(r.Stdout) > 1<<20+200 || r.Stderr != "done\n" {
		t.Errorf("big output: code %d, %d bytes, stderr %q", r.Code, len(r.Stdout), r.Stderr)
	}
	if r := res[2]; r.Code != 0 || r.Stdout != "left\n" {
		t.Errorf("grandchild: %+v", r)
	}
	if r := res[3]; r.Code != 0 {
		t.Errorf("capped timeout: %+v", r)
	}
}

func TestExecTimeoutBounds(t *testing.T) {
	t.Parallel()
	s := &session{r: (&Runner{}).withDefaults()}
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		in   *float64
		want time.Duration
	}{
		{nil, 30 * time.Second}, {f(0), 30 * time.Second}, {f(-3), 30 * time.Second},
		{f(1.5), 1500 * time.Millisecond}, {f(300), 300 * time.Second}, {f(1e9), 300 * time.Second},
	}
	for _, tt := range tests {
		if got := s.execTimeout(tt.in); got != tt.want {
			t.Errorf("execTimeout(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestConfinementRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	userHome := filepath.Join(dir, "home")
	fh := filepath.Join(userHome, ".config", "fledge")
	plugin := filepath.Join(fh, "plugins", "p")
	other := filepath.Join(fh, "plugins", "other")
	mono := filepath.Join(userHome, "code", "mono")
	svc := filepath.Join(mono, "svc")
	sibling := filepath.Join(userHome, "code", "sibling")
	for _, d := range []string{plugin, other, svc, filepath.Join(mono, "lib"), sibling} {
		mustMkdir(t, d)
	}
	tests := []struct {
		name     string
		run, git string
		cwd      string
		want     string // "" means refused
	}{
		{"default is where fledge runs", svc, mono, "", svc},
		{"relative to where fledge runs", svc, mono, ".", svc},
		{"the git work tree counts", svc, mono, "..", mono},
		{"inside the git work tree", svc, mono, "../lib", filepath.Join(mono, "lib")},
		{"absolute in the work tree", svc, mono, mono, mono},
		{"the plugin's directory", svc, mono, plugin, plugin},
		{"outside the work tree", svc, mono, "../..", ""},
		{"a sibling", svc, mono, sibling, ""},
		{"without a repository, only the run directory", svc, "", "..", ""},
		{"the home directory as the run directory", userHome, "", "code", filepath.Join(userHome, "code")},
		{"a dotfiles work tree does not count", svc, userHome, "../..", ""},
		{"fledge's state, even below the run directory", userHome, "", ".config/fledge", ""},
		{"another plugin's tree", userHome, "", other, ""},
		{"run inside fledge's state", other, "", "", ""},
		{"an unknown run directory falls back to the plugin's", "", "", "", plugin},
		{"the filesystem root", svc, mono, "/", ""},
	}
	for _, tt := range tests {
		c := newConfinement(tt.run, tt.git, plugin, fh, userHome)
		got, err := c.resolve(tt.cwd)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: cwd %q allowed as %s", tt.name, tt.cwd, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: cwd %q = %q, %v; want %s", tt.name, tt.cwd, got, err, tt.want)
		}
	}
}

// An exec of a command printing 10 MiB of NUL bytes on each stream used to
// answer with a 126 MB line (each NUL escapes to \u0000). With the default
// limits the response now stays under twice the output limit: each stream
// keeps the NUL bytes whose encoding fits, and says what it dropped.
func TestExecResponseBoundedWhateverTheBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.installScript("fledge-plugin-execnul", "execnul", "execnul.sh", "fledge-v1", manifest.Capabilities{Exec: true})
	if _, err := e.run(Request{Command: "execnul"}); err != nil {
		t.Fatalf("%v\n%s", err, e.stderr)
	}
	line, err := os.ReadFile(filepath.Join(dir, "response.json"))
	if err != nil {
		t.Fatal(err)
	}
	if max := 2*DefaultMaxExecOutput + 1024; len(line) > max {
		t.Fatalf("exec response line is %d bytes, more than %d", len(line), max)
	}
	var resp struct {
		ID    string              `json:"id"`
		Value protocol.ExecResult `json:"value"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		t.Fatalf("response: %v", err)
	}
	kept := DefaultMaxExecOutput / 6
	for name, got := range map[string]string{"stdout": resp.Value.Stdout, "stderr": resp.Value.Stderr} {
		note := fmt.Sprintf("\n[fledge: output truncated: kept the first %d bytes, dropped %d]\n", kept, 10<<20-kept)
		if got != strings.Repeat("\x00", kept)+note {
			t.Errorf("%s: %d bytes, ending %q; want %d NUL bytes and the note %q", name, len(got), got[max(0, len(got)-100):], kept, note)
		}
	}
	if resp.ID != "nul" || resp.Value.Code != 0 {
		t.Errorf("response id %q, code %d", resp.ID, resp.Value.Code)
	}
}
