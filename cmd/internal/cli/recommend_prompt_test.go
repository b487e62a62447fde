package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/registry"
)

// On a terminal, recommend offers to install everything it suggests, as
// the Rust fledge does; each install still goes through approval.
func TestRecommendInstallsOnATerminal(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	gh := strings.TrimPrefix(f.env["FLEDGE_GITHUB_URL"], "file://")
	project := t.TempDir()
	recs := registry.Recommend("generic", registry.ProjectSignals{})
	for _, r := range recs {
		_, name, _ := strings.Cut(r.Repo, "/")
		short := strings.TrimPrefix(name, "fledge-plugin-")
		newE2ERepo(t, filepath.Join(gh, "CorvidLabs", name)).commit(t, e2ePluginToml(short, "1.0.0"), "")
	}
	run := func(p Prompter) (int, string) {
		t.Helper()
		var out, errOut strings.Builder
		s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(k string) string { return f.env[k] }}
		terminal(t, s)
		fac := NewFactory(s, "test")
		fac.Prompter = p
		fac.Getwd = func() (string, error) { return project, nil }
		code := run(t.Context(), fac, []string{"plugins", "recommend"})
		return code, errOut.String()
	}
	installed := func() int {
		t.Helper()
		_, out, _ := f.fledge("plugins", "list", "--json")
		var doc struct{ Plugins []any }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		return len(doc.Plugins)
	}

	if code, errOut := run(newMockPrompter(t, promptStep{kind: "confirm", title: "Install all 6 recommended plugins?", answer: false})); code != 0 || !strings.Contains(errOut, "Install individually") {
		t.Fatalf("declined: exit %d: %s", code, errOut)
	}
	if n := installed(); n != 0 {
		t.Fatalf("declining installed %d plugins", n)
	}
	if code, errOut := run(newMockPrompter(t, promptStep{kind: "confirm", title: "Install all 6", answer: true})); code != 0 {
		t.Fatalf("accepted: exit %d: %s", code, errOut)
	}
	if n := installed(); n != len(recs) {
		t.Fatalf("installed %d plugins, want %d", n, len(recs))
	}
	// Everything is installed now: nothing to offer.
	if code, errOut := run(newMockPrompter(t)); code != 0 || !strings.Contains(errOut, "already installed") {
		t.Fatalf("again: exit %d: %s", code, errOut)
	}
}
