package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// updPlugin is the files of a plugin named fledge-plugin-<cmd> with one
// command cmd, at version, with extra plugin.toml text.
func updPlugin(cmd, version, extraToml string) map[string]string {
	return map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-" + cmd + "\"\nversion = \"" + version + "\"\n" + extraToml +
			"\n[[commands]]\nname = \"" + cmd + "\"\nbinary = \"bin/" + cmd + "\"\n",
		"bin/" + cmd: helloScript,
		"VERSION":    version,
	}
}

// updWant is what one plugin's update should come to.
type updWant struct {
	status string
	to     string // target commit ("" for none)
	newer  []string
	failed bool
}

// The check phase lists every remote concurrently, at most Concurrency at
// once; results come back complete and sorted by name whatever order the
// checks finish in, and each plugin lands where its pin says.
func TestUpdateCheckConcurrency(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	const limit = 8
	e := newEnv(t)
	in := e.installer(Consent{})
	ctx := context.Background()

	want := map[string]updWant{}
	var gitPlugins int
	// 16 git plugins (twice the limit), four kinds in turn, installed in an order unlike
	// their names' order.
	for i := 15; i >= 0; i-- {
		cmd := fmt.Sprintf("p%02d", i)
		plugin := "fledge-plugin-" + cmd
		g := newGitRepo(t)
		g.commit(t, updPlugin(cmd, "1.0.0", ""), "v1.0.0")
		src := g.url
		switch i % 4 {
		case 0: // constraint pin with a newer match (and one outside it)
			src += "@^1.0"
		case 1: // exact tag pin with newer tags
			src += "@v1.0.0"
		case 2: // default branch, which moves
		case 3: // constraint pin, nothing new
			src += "@~1.0"
		}
		if _, err := in.Install(ctx, src); err != nil {
			t.Fatalf("install %s: %v\n%s", src, err, e.log)
		}
		gitPlugins++
		switch i % 4 {
		case 0:
			c2 := g.commit(t, updPlugin(cmd, "1.1.0", ""), "v1.1.0")
			g.commit(t, updPlugin(cmd, "2.0.0", ""), "v2.0.0")
			want[plugin] = updWant{status: StatusUpdated, to: c2}
		case 1:
			g.commit(t, updPlugin(cmd, "1.1.0", ""), "v1.1.0")
			g.commit(t, updPlugin(cmd, "1.2.0", ""), "v1.2.0")
			want[plugin] = updWant{status: StatusUpToDate, newer: []string{"v1.2.0", "v1.1.0"}}
		case 2:
			c2 := g.commit(t, updPlugin(cmd, "1.0.1", ""), "")
			want[plugin] = updWant{status: StatusUpdated, to: c2}
		case 3:
			want[plugin] = updWant{status: StatusUpToDate}
		}
		if i == 5 { // this remote disappears: its check fails, the others go on
			if err := os.RemoveAll(g.dir); err != nil {
				t.Fatal(err)
			}
			want[plugin] = updWant{status: StatusFailed, failed: true}
		}
	}
	// A live-linked local plugin: skipped, never listed.
	local := t.TempDir()
	testutil.WriteTree(t, local, updPlugin("loc", "0.1.0", ""))
	if _, err := in.Install(ctx, local); err != nil {
		t.Fatalf("install local: %v", err)
	}
	want["fledge-plugin-loc"] = updWant{status: StatusSkipped}

	// Every remote check asks for credentials first: hold those calls
	// until `limit` are in flight at once, and record the most ever in
	// flight. Calls after the check phase (fetching) pass straight through.
	var (
		mu                    sync.Mutex
		calls, inflight, most int
		full                  = make(chan struct{})
		release               = make(chan struct{})
		fullOnce, releaseOnce sync.Once
		checkCalls            = gitPlugins
		releaseAll            = func() { releaseOnce.Do(func() { close(release) }) }
	)
	defer releaseAll()
	in.Git.Auth = func(string) transport.AuthMethod {
		mu.Lock()
		calls++
		n := calls
		inflight++
		most = max(most, inflight)
		if inflight == limit {
			fullOnce.Do(func() { close(full) })
		}
		mu.Unlock()
		if n <= checkCalls {
			<-release
		}
		mu.Lock()
		inflight--
		mu.Unlock()
		return nil
	}

	u := &Updater{Installer: in, Concurrency: limit}
	type outcome struct {
		res []UpdateResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := u.Update(ctx, nil)
		done <- outcome{res, err}
	}()
	select {
	case <-full:
	case o := <-done:
		t.Fatalf("Update returned before %d checks were in flight at once: %v", limit, o.err)
	case <-time.After(20 * time.Second):
		releaseAll()
		t.Fatalf("never %d checks in flight at once (most %d)", limit, most)
	}
	// Give an unbounded implementation the chance to start a ninth check.
	time.Sleep(50 * time.Millisecond)
	releaseAll()
	o := testutil.Receive(t, "Update to return once the checks were released", done)
	if o.err != nil {
		t.Fatalf("Update: %v\n%s", o.err, e.log)
	}
	mu.Lock()
	if most != limit {
		t.Errorf("at most %d checks should run at once, and that many can: most in flight was %d", limit, most)
	}
	mu.Unlock()

	if len(o.res) != len(want) {
		t.Fatalf("%d results, want %d", len(o.res), len(want))
	}
	if !sort.SliceIsSorted(o.res, func(i, j int) bool { return o.res[i].Name < o.res[j].Name }) {
		var got []string
		for _, r := range o.res {
			got = append(got, r.Name)
		}
		t.Errorf("results not sorted by name: %v", got)
	}
	for _, r := range o.res {
		w, ok := want[r.Name]
		if !ok {
			t.Errorf("unexpected result %+v", r)
			continue
		}
		if r.Status != w.status {
			t.Errorf("%s: status %s, want %s (%s)", r.Name, r.Status, w.status, r.Detail)
		}
		if (r.Err != nil) != w.failed {
			t.Errorf("%s: err %v", r.Name, r.Err)
		}
		var fe *FetchError
		if w.failed && !errors.As(r.Err, &fe) {
			t.Errorf("%s: a vanished remote should be a FetchError, got %T %v", r.Name, r.Err, r.Err)
		}
		if w.to != "" && (r.To == nil || r.To.Commit != w.to) {
			t.Errorf("%s: to %+v, want commit %s", r.Name, r.To, w.to)
		}
		if len(w.newer) > 0 && !reflect.DeepEqual(r.NewerTags, w.newer) {
			t.Errorf("%s: newer tags %v, want %v", r.Name, r.NewerTags, w.newer)
		}
		if ent, ok := e.entry(t, r.Name); !ok {
			t.Errorf("%s: entry gone", r.Name)
		} else if w.status == StatusUpdated && ent.Commit != w.to {
			t.Errorf("%s: recorded commit %s, want %s", r.Name, ent.Commit, w.to)
		}
	}
	if s := names(t, e.paths.StagingDir()); len(s) != 0 {
		t.Errorf("staging not cleaned: %v", s)
	}
}

// escalationFixture installs fledge-plugin-hello v1 (store only) from an
// unverified file:// repo, plus a bystander plugin, then commits v2 asking
// for exec and network on top and adding a post_install hook.
func escalationFixture(t *testing.T) (e *env, in *Installer, g *gitRepo, c1, c2 string) {
	t.Helper()
	e = newEnv(t)
	in = e.installer(Consent{Yes: true})
	g = newGitRepo(t)
	c1 = g.commit(t, pluginFiles("1.0.0", "\n[capabilities]\nstore = true\n"), "")
	if _, err := in.Install(context.Background(), g.url); err != nil {
		t.Fatalf("install v1: %v\n%s", err, e.log)
	}
	other := newGitRepo(t)
	other.commit(t, updPlugin("other", "1.0.0", ""), "")
	if _, err := in.Install(context.Background(), other.url); err != nil {
		t.Fatalf("install other: %v\n%s", err, e.log)
	}
	c2 = g.commit(t, pluginFiles("2.0.0", "\n[capabilities]\nstore = true\nexec = true\nnetwork = true\n\n[hooks]\npost_install = \"touch installed-v2\"\n"), "")
	return e, in, g, c1, c2
}

// A declined or refused escalation leaves everything exactly as it was:
// plugins.toml byte for byte, the tree, the command links, no staging
// left; only the escalation reaches Consent.Ask.
func TestUpdateDeclinedEscalationLeavesEverything(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e, in, _, c1, c2 := escalationFixture(t)
	before := e.snapshot(t, name)
	if before.lock == "" || before.tree == "" || len(before.links) != 2 {
		t.Fatalf("fixture: %+v", before)
	}
	var asked []Request
	interrupted := errors.New("interrupted at the prompt")
	for _, tc := range []struct {
		label   string
		consent Consent
		approve bool // the error must be an ApprovalError
	}{
		{"no consent, no terminal", Consent{}, true},
		{"--yes on an unverified source", Consent{Yes: true}, true},
		{"--grant exec,network without hooks", Consent{Grant: map[string]bool{"exec": true, "network": true}}, true},
		{"--yes --grant exec (network withheld)", Consent{Yes: true, Grant: map[string]bool{"exec": true}}, true},
		{"the prompt is interrupted", Consent{Ask: func(r Request) (Decision, error) {
			asked = append(asked, r)
			return Decision{}, interrupted
		}}, false},
		{"the prompt grants the capabilities but not the post_install hook", Consent{Ask: func(r Request) (Decision, error) {
			asked = append(asked, r)
			return Decision{Capabilities: r.Capabilities}, nil
		}}, true},
	} {
		c := *in
		c.Consent = tc.consent
		res, err := (&Updater{Installer: &c}).Update(context.Background(), []string{"hello"})
		if err != nil {
			t.Fatalf("%s: Update: %v", tc.label, err)
		}
		if len(res) != 1 {
			t.Fatalf("%s: results %+v", tc.label, res)
		}
		r := res[0]
		var ae *ApprovalError
		if r.Status != StatusFailed || !r.Escalation || r.To == nil || r.To.Commit != c2 || r.From.Commit != c1 {
			t.Errorf("%s: result %+v", tc.label, r)
		}
		if tc.approve && !errors.As(r.Err, &ae) {
			t.Errorf("%s: err %T %v, want an ApprovalError", tc.label, r.Err, r.Err)
		}
		if !tc.approve && !errors.Is(r.Err, interrupted) {
			t.Errorf("%s: err %v, want the prompt's error", tc.label, r.Err)
		}
		wantAdded := []manifest.Capability{manifest.CapExec, manifest.CapNetwork}
		if !reflect.DeepEqual(r.AddedCapabilities, wantAdded) {
			t.Errorf("%s: added %v, want %v", tc.label, r.AddedCapabilities, wantAdded)
		}
		if len(r.HookChanges) != 1 || r.HookChanges[0] != (HookChange{Name: "post_install", To: "touch installed-v2"}) {
			t.Errorf("%s: hook changes %+v", tc.label, r.HookChanges)
		}
		after := e.snapshot(t, name)
		if after.lock != before.lock {
			t.Errorf("%s: plugins.toml changed:\n--- before\n%s\n--- after\n%s", tc.label, before.lock, after.lock)
		}
		if !reflect.DeepEqual(after, before) {
			t.Errorf("%s: state changed:\nbefore %+v\nafter  %+v", tc.label, before, after)
		}
		if out := runCommand(t, e, "hello"); out != "hello from v1.0.0" {
			t.Errorf("%s: command printed %q", tc.label, out)
		}
		if _, err := os.Stat(e.paths.PluginDir(name) + "/installed-v2"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the unapproved post_install ran: %v", tc.label, err)
		}
	}
	// Ask saw only what is new: exec and network (store was approved
	// before) and the new hook.
	for _, r := range asked {
		if r.Capabilities.Store || !r.Capabilities.Exec || !r.Capabilities.Network {
			t.Errorf("Ask saw capabilities %+v, want exec and network only", r.Capabilities)
		}
		if len(r.Hooks) != 1 || r.Hooks[0].Name != "post_install" {
			t.Errorf("Ask saw hooks %+v", r.Hooks)
		}
	}
	if len(asked) != 2 {
		t.Errorf("Ask called %d times, want 2", len(asked))
	}

	// A dry run reports the same and changes nothing either.
	res, err := (&Updater{Installer: in, DryRun: true}).Update(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Name != name || res[0].Status != StatusWouldUpdate || !res[0].Escalation || res[0].To.Version != "2.0.0" ||
		res[1].Name != "fledge-plugin-other" || res[1].Status != StatusUpToDate {
		t.Errorf("dry run: %+v", res)
	}
	if after := e.snapshot(t, name); !reflect.DeepEqual(after, before) {
		t.Errorf("dry run changed state:\nbefore %+v\nafter  %+v", before, after)
	}

	// Approved: swapped in, grants carried over plus the new ones.
	c := *in
	c.Consent = Consent{Yes: true, Grant: map[string]bool{"exec": true, "network": true, "hooks": true}}
	res, err = (&Updater{Installer: &c}).Update(context.Background(), []string{name})
	if err != nil || len(res) != 1 || res[0].Status != StatusUpdated {
		t.Fatalf("approved update: %v %+v\n%s", err, res, e.log)
	}
	ent, _ := e.entry(t, name)
	if ent.Commit != c2 || !ent.Capabilities.Exec || !ent.Capabilities.Network || !ent.Capabilities.Store || ent.Hooks["post_install"] != "touch installed-v2" {
		t.Errorf("entry after approval: %+v", ent)
	}
	if out := runCommand(t, e, "hello"); out != "hello from v2.0.0" {
		t.Errorf("command printed %q", out)
	}
}

// What was denied stays denied without being asked again, --grant grants
// exactly what it names of an escalation (the rest is denied, as at
// install), and only what is new is ever put to the user.
func TestUpdateCarriesDenialsAndPartialGrants(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	g := newGitRepo(t)
	g.commit(t, pluginFiles("1.0.0", "\n[capabilities]\nexec = true\nstore = true\n"), "")
	in := e.installer(Consent{Grant: map[string]bool{"store": true}})
	if _, err := in.Install(ctx, g.url); err != nil {
		t.Fatalf("install: %v\n%s", err, e.log)
	}

	// v2 asks for the same: no escalation, nobody asked, exec still denied.
	c2 := g.commit(t, pluginFiles("2.0.0", "\n[capabilities]\nexec = true\nstore = true\n"), "")
	asked := 0
	c := *in
	c.Consent = Consent{Ask: func(Request) (Decision, error) { asked++; return Decision{}, errors.New("asked") }}
	res, err := (&Updater{Installer: &c}).Update(ctx, nil)
	if err != nil || len(res) != 1 || res[0].Status != StatusUpdated || res[0].Escalation || asked != 0 {
		t.Fatalf("same request: err %v, asked %d, %+v\n%s", err, asked, res, e.log)
	}
	ent, _ := e.entry(t, name)
	if ent.Commit != c2 || ent.Capabilities.Exec || !ent.Capabilities.Store {
		t.Errorf("after v2: %+v", ent.Capabilities)
	}

	// v3 adds metadata and network: only those are asked about, and
	// --grant metadata grants metadata and denies network.
	c3 := g.commit(t, pluginFiles("3.0.0", "\n[capabilities]\nexec = true\nstore = true\nmetadata = true\nnetwork = true\n"), "")
	var seen Request
	c.Consent = Consent{Ask: func(r Request) (Decision, error) { seen = r; return Decision{}, errors.New("declined") }}
	res, _ = (&Updater{Installer: &c}).Update(ctx, nil)
	if res[0].Status != StatusFailed || seen.Capabilities.Exec || seen.Capabilities.Store || !seen.Capabilities.Metadata || !seen.Capabilities.Network {
		t.Errorf("asked about %+v (result %+v)", seen.Capabilities, res[0])
	}
	c.Consent = Consent{Grant: map[string]bool{"metadata": true}}
	res, err = (&Updater{Installer: &c}).Update(ctx, nil)
	if err != nil || res[0].Status != StatusUpdated {
		t.Fatalf("--grant metadata: %v %+v\n%s", err, res, e.log)
	}
	ent, _ = e.entry(t, name)
	want := manifest.Capabilities{Store: true, Metadata: true}
	if ent.Commit != c3 || !ent.Capabilities.Equal(want) {
		t.Errorf("after v3: commit %s, granted %+v, want %+v", ent.Commit, ent.Capabilities, want)
	}
}

// A record without a kind (the Rust fledge's) whose source is a directory
// is local: update skips it without fetching anything.
func TestUpdateSkipsKindlessLocalRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := e.installer(Consent{})
	local := t.TempDir()
	testutil.WriteTree(t, local, updPlugin("loc", "0.1.0", ""))
	if _, err := in.Install(context.Background(), local); err != nil {
		t.Fatalf("install local: %v", err)
	}
	err := in.Store.Update(func(f *lockfile.File) error {
		p, _ := f.Get("fledge-plugin-loc")
		p.Kind = ""
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	in.Git.Auth = func(url string) transport.AuthMethod {
		t.Errorf("update contacted %s for a local record", url)
		return nil
	}
	res, err := (&Updater{Installer: in}).Update(context.Background(), nil)
	if err != nil || len(res) != 1 || res[0].Status != StatusSkipped || res[0].Detail != "local plugin" {
		t.Fatalf("update: %v %+v", err, res)
	}
}
