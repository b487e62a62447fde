package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/events"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/settings"
)

// TestTentativeRecordsNoRefusal: a Tentative runner leaves a run refused
// before it began (unknown command, policy, a wasm plugin and no engine) unrecorded — no event, no
// grant log entry — and says so (Deferred); a runner that is not records
// both; a run that starts is recorded either way.
func TestTentativeRecordsNoRefusal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installScript("fledge-plugin-hello", "hello", "hello.sh", "", manifest.Capabilities{})
	e.installWasm(manifest.Capabilities{})
	file := filepath.Join(e.dir, "policy.toml")
	writeFile(t, file, "[sources]\nallow = [\"github.com/nobody/*\"]\n", 0o644)
	pol, err := policy.Load(policy.Inputs{Env: file})
	if err != nil {
		t.Fatal(err)
	}
	size := func(path string) int64 {
		st, err := os.Stat(path)
		if os.IsNotExist(err) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	for _, tc := range []struct {
		name      string
		command   string
		policy    bool
		noWasm    bool // the runner has no wasm engine
		tentative bool
		deferred  bool
		recorded  bool
		logged    bool
	}{
		{"unknown command, tentative", "nosuch", false, false, true, true, false, false},
		{"policy refusal, tentative", "hello", true, false, true, true, false, false},
		{"policy refusal", "hello", true, false, false, false, true, true},
		{"a run, tentative", "hello", false, false, true, false, true, false},
		{"a wasm plugin and no engine, tentative", "drive", false, true, true, true, false, false},
		{"a wasm plugin and no engine", "drive", false, true, false, false, true, false},
		{"a wasm run, tentative", "drive", false, false, true, false, true, false},
	} {
		r := e.runner()
		r.Tentative = tc.tentative
		if tc.noWasm {
			r.Wasm = nil
		}
		r.Events, r.Journal = events.New(e.paths.EventsFile()), grantlog.New(e.paths.GrantLog())
		if tc.policy {
			r.Settings = settings.New(nil, pol)
		}
		ev, gl := size(e.paths.EventsFile()), size(e.paths.GrantLog())
		res, err := e.runWith(r, Request{Command: tc.command})
		if res.Deferred() != tc.deferred {
			t.Errorf("%s: Deferred() = %v, want %v (err %v)", tc.name, res.Deferred(), tc.deferred, err)
		}
		if got := size(e.paths.EventsFile()) > ev; got != tc.recorded {
			t.Errorf("%s: an event was recorded: %v, want %v", tc.name, got, tc.recorded)
		}
		if got := size(e.paths.GrantLog()) > gl; got != tc.logged {
			t.Errorf("%s: the grant log grew: %v, want %v", tc.name, got, tc.logged)
		}
		if tc.deferred && (err == nil || res.Started) {
			t.Errorf("%s: a deferred run ended with err %v, started %v: want its refusal, not started", tc.name, err, res.Started)
		}
		if tc.noWasm && (CodeOf(err) != CodeUnsupportedRuntime || res.Started || !strings.Contains(err.Error(), "no wasm engine")) {
			t.Errorf("%s: err %v (%s), started %v: want unsupported_runtime naming the missing engine, not started", tc.name, err, CodeOf(err), res.Started)
		}
	}
}
