package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fledgeOnTerminal runs fledge as fledge() does, on a terminal whose
// prompts p answers.
func (f *e2eFixture) fledgeOnTerminal(p Prompter, args ...string) (code int, stdout, stderr string) {
	f.t.Helper()
	var out, errOut bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut,
		Getenv: func(k string) string { return f.env[k] }}
	terminal(f.t, s)
	fac := NewFactory(s, "test")
	fac.Prompter = p
	code = run(context.Background(), fac, args)
	return code, out.String(), errOut.String()
}

func TestSearchInteractiveInstallsThePick(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	gh := strings.TrimPrefix(f.env["FLEDGE_GITHUB_URL"], "file://")
	for _, name := range []string{"alpha", "pick"} {
		newE2ERepo(t, filepath.Join(gh, "acme", "fledge-plugin-"+name)).commit(t, e2ePluginToml(name, "1.0.0"), "")
	}
	idx := `[{"name":"fledge-plugin-alpha","repo":"` + f.env["FLEDGE_GITHUB_URL"] + `/acme/fledge-plugin-alpha","stars":9},
	         {"name":"fledge-plugin-pick","repo":"` + f.env["FLEDGE_GITHUB_URL"] + `/acme/fledge-plugin-pick","stars":1}]`
	f.env["FLEDGE_REGISTRY_URL"] = writeIndex(t, idx)

	// Esc at the picker installs nothing and exits 130, as every
	// abandoned question does.
	p := newMockPrompter(t, promptStep{kind: "select", title: "Select a plugin to install", err: errPromptAborted})
	code, _, errOut := f.fledgeOnTerminal(p, "plugins", "search", "--interactive")
	if code != ExitInterrupted || !strings.Contains(errOut, "Cancelled.") {
		t.Fatalf("cancel: exit %d stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(f.env["FLEDGE_HOME"], "plugins.toml")); !os.IsNotExist(err) {
		t.Fatalf("a cancelled pick wrote plugins.toml: %v", err)
	}

	p = newMockPrompter(t, promptStep{kind: "select", title: "Select a plugin to install", answer: 1})
	code, out, errOut := f.fledgeOnTerminal(p, "plugins", "search", "-i")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(p.asked[0], "acme/fledge-plugin-alpha") || !strings.Contains(p.asked[0], "acme/fledge-plugin-pick") {
		t.Errorf("the picker did not list both results: %q", p.asked[0])
	}
	_, out, _ = f.fledge("plugins", "list", "--json")
	var doc struct {
		Plugins []struct{ Name string } `json:"plugins"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Plugins) != 1 || doc.Plugins[0].Name != "fledge-plugin-pick" {
		t.Errorf("installed %+v, want only the picked plugin", doc.Plugins)
	}
}
