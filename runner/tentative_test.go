package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/corvidlabs/fledge-go/events"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/settings"
)

// TestTentativeRecordsNoRefusal: a Tentative runner leaves a run refused
// before it began (unknown command, policy) unrecorded — no event, no
// grant log entry — and says so (Deferred); a runner that is not records
// both; a run that starts is recorded either way.
func TestTentativeRecordsNoRefusal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installScript("fledge-plugin-hello", "hello", "hello.sh", "", manifest.Capabilities{})
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
		tentative bool
		deferred  bool
		recorded  bool
		logged    bool
	}{
		{"unknown command, tentative", "nosuch", false, true, true, false, false},
		{"policy refusal, tentative", "hello", true, true, true, false, false},
		{"policy refusal", "hello", true, false, false, true, true},
		{"a run, tentative", "hello", false, true, false, true, false},
	} {
		r := e.runner()
		r.Tentative = tc.tentative
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
	}
}
