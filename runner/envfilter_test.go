package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/protocol"
)

// What exec's commands get and what metadata "env" answers both pass the
// secret filter (confine.FilterEnv, held to its corpus in package
// confine): a real protocol plugin sees none of the dropped entries and
// every kept one.
func TestEnvFilterReachesExecAndMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	kept := []string{"EDITOR=vim", "LANGUAGE=en_US:en", "DOCKER_HOST=unix:///run/docker.sock", "CI=true"}
	dropped := []string{"GITHUB_TOKEN=ghp_" + strings.Repeat("a", 36), "AWS_SECRET_ACCESS_KEY=abc", "DATABASE_URL=postgres://u:p@h/db",
		"APP_CONFIG=https://u:pw@example.com/", "FLEDGE_HOME=/somewhere"}
	e.environ = append(append(e.environ, kept...), dropped...)
	dir := e.driver(manifest.Capabilities{Exec: true, Metadata: true},
		`?{"type":"exec","id":"1","command":"env"}`,
		`?{"type":"metadata","id":"2","keys":["env"]}`)
	if _, err := e.run(Request{Command: "drive"}); err != nil {
		t.Fatalf("%v\n%s", err, e.stderr)
	}
	resps := e.responses(dir)
	if len(resps) != 2 {
		t.Fatalf("%d responses", len(resps))
	}
	var res protocol.ExecResult
	b, _ := json.Marshal(resps[0]["value"])
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	execEnv := map[string]string{}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if name, value, ok := strings.Cut(l, "="); ok {
			execEnv[name] = value
		}
	}
	meta, _ := resps[1]["value"].(map[string]any)["env"].(map[string]any)
	for _, kv := range kept {
		name, value, _ := strings.Cut(kv, "=")
		if execEnv[name] != value || meta[name] != value {
			t.Errorf("%s did not reach the plugin (exec %q, metadata %q)", name, execEnv[name], meta[name])
		}
	}
	for _, kv := range dropped {
		name, _, _ := strings.Cut(kv, "=")
		if _, inMeta := meta[name]; inMeta || execEnv[name] != "" {
			t.Errorf("%s reached the plugin (exec %q, metadata %v)", name, execEnv[name], inMeta)
		}
	}
}
