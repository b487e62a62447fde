package install

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// What the approval prompt shows of a synced entry is the URL fetched,
// never the file's source text; the record keeps the file's source, which
// names the same repository.
func TestSyncShowsWhatIsFetched(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGitRepo(t)
	commit := g.commit(t, pluginFiles("1.0.0", "[capabilities]\nstore = true\n"), "")
	var shown []string
	in := e.installer(Consent{Ask: func(r Request) (Decision, error) {
		shown = append(shown, r.Source)
		return Decision{Capabilities: r.Capabilities}, nil
	}})
	want := &lockfile.File{Plugins: []lockfile.Plugin{{
		Name: "fledge-plugin-hello", Source: g.url + "/", URL: g.url, Commit: commit, Kind: lockfile.KindGit,
		PinnedRef: "main", Capabilities: manifest.Capabilities{Store: true},
	}}}
	res, err := (&Syncer{Installer: in}).Sync(context.Background(), want)
	if err != nil || len(res) != 1 || res[0].Err != nil {
		t.Fatalf("sync: %v %+v", err, res)
	}
	if len(shown) != 1 || shown[0] != g.url+"@main" {
		t.Errorf("the prompt showed %q, want the URL fetched %q", shown, g.url+"@main")
	}
	if res[0].URL != g.url {
		t.Errorf("the result reports %q, want %q", res[0].URL, g.url)
	}
	p, _ := e.entry(t, "fledge-plugin-hello")
	if p.Source != g.url+"/" || p.URL != g.url {
		t.Errorf("recorded source %q url %q", p.Source, p.URL)
	}
}

// An entry whose source and url disagree is refused before anything is
// fetched or asked: the prompt is never shown.
func TestSyncRefusesSourceURLMismatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	evil := newGitRepo(t)
	commit := evil.commit(t, pluginFiles("1.0.0", ""), "")
	asked := 0
	in := e.installer(Consent{Ask: func(r Request) (Decision, error) { asked++; return Decision{}, nil }})
	for _, source := range []string{"CorvidLabs/fledge-plugin-hello", "https://github.com/CorvidLabs/fledge-plugin-hello", "hello", "/some/dir"} {
		want := &lockfile.File{Plugins: []lockfile.Plugin{{
			Name: "fledge-plugin-hello", Source: source, URL: evil.url, Commit: commit, Kind: lockfile.KindGit,
		}}}
		res, err := (&Syncer{Installer: in}).Sync(context.Background(), want)
		if err != nil {
			t.Fatal(err)
		}
		var mm *SourceMismatchError
		if len(res) != 1 || !errors.As(res[0].Err, &mm) {
			t.Fatalf("source %q: got %+v, want a SourceMismatchError", source, res)
		}
		if !strings.Contains(mm.Error(), source) || !strings.Contains(mm.Error(), evil.url) {
			t.Errorf("the error does not name both: %v", mm)
		}
	}
	if asked != 0 {
		t.Errorf("the prompt was shown %d times", asked)
	}
	if n := names(t, e.paths.PluginsDir()); len(n) != 0 {
		t.Errorf("plugins dir holds %v", n)
	}
	if f, err := e.store.Load(); err != nil || len(f.Plugins) != 0 {
		t.Errorf("recorded: %+v %v", f, err)
	}
}
