package fastrun

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/corvidlabs/fledge-go/events"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/settings"
)

// EnvPromptTimeout overrides how long a plugin's question waits for an
// answer (a Go duration such as "90s", or seconds).
const EnvPromptTimeout = "FLEDGE_PROMPT_TIMEOUT"

// EnvConfine turns the kernel confinement of native plugins off ("off")
// or leaves it on ("on", the default).
const EnvConfine = "FLEDGE_CONFINE"

// Wiring is what a run takes from fledge's process.
type Wiring struct {
	Paths   home.Paths
	Version string
	Getenv  func(string) string
	// SystemPolicy is the system policy file's path (policy.SystemPath();
	// tests point it elsewhere).
	SystemPolicy string
	Now          func() time.Time

	UI             runner.UI
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	StdoutTTY      bool
	Interactive    bool

	// Wasm runs wasm plugins (runner.Runner.Wasm): the command line's
	// runners have runner/wasmengine's; nil, the split fledge's runner
	// defers a wasm plugin's run to the command line.
	Wasm runner.WasmEngine
}

// UsageError is an environment variable a run cannot go on with; the
// command line reports it as a usage error.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// NewRunner is the runner of every run fledge's command line starts
// (`fledge <command>`, `fledge plugins run`): its streams, its settings
// (config.toml and the admin policy, read afresh: a policy that cannot be
// read refuses to run anything), the grant log, the event trail, the seed
// directories, and FLEDGE_CONFINE and FLEDGE_PROMPT_TIMEOUT.
func NewRunner(w Wiring) (*runner.Runner, error) {
	r := &runner.Runner{
		Paths:       w.Paths,
		Version:     w.Version,
		UI:          w.UI,
		Stdin:       w.Stdin,
		Stdout:      w.Stdout,
		Stderr:      w.Stderr,
		StdoutTTY:   w.StdoutTTY,
		NoColor:     w.Getenv("NO_COLOR") != "",
		Interactive: w.Interactive,
		Environ:     os.Environ,
		Getwd:       os.Getwd,
		Wasm:        w.Wasm,
	}
	set, err := settings.Load(SettingsInputs(w.Paths, w.SystemPolicy, w.Getenv))
	if err != nil {
		return nil, err
	}
	r.Settings, r.Journal = set, GrantLog(w.Paths, w.Now)
	r.Events, r.Actor = events.New(w.Paths.EventsFile()), UserActor()
	r.Seeds = SeedDirs(w.Getenv)
	if h, err := os.UserHomeDir(); err == nil {
		r.UserHome = h
	}
	switch v := w.Getenv(EnvConfine); v {
	case "", "on", "off":
		r.Unconfined = UnconfinedBy(w.Getenv)
	default:
		return nil, &UsageError{Msg: fmt.Sprintf("%s=%q: want on or off", EnvConfine, v)}
	}
	if v := w.Getenv(EnvPromptTimeout); v != "" {
		d, err := ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, &UsageError{Msg: fmt.Sprintf("%s=%q: want a positive duration such as 90s or 5m", EnvPromptTimeout, v)}
		}
		r.Timeouts.Prompt = d
	}
	return r, nil
}

// SettingsInputs are the files and variables fledge's settings come from.
func SettingsInputs(paths home.Paths, systemPolicy string, getenv func(string) string) settings.Inputs {
	return settings.Inputs{ConfigFile: paths.ConfigFile(), SystemPolicy: systemPolicy, EnvPolicy: getenv(policy.EnvPolicy),
		RevocationCache: paths.CacheDir()}
}

// GrantLog is the grant log of a home, stamped with now.
func GrantLog(paths home.Paths, now func() time.Time) *grantlog.Log {
	l := grantlog.New(paths.GrantLog())
	l.Now = now
	return l
}

// UserActor is the user fledge runs as, as the event trail names who
// asked for a run: the uid alone. Looking the name up costs about 70 µs
// (os/user reads the account database), on every run; audit --events
// names the uid when it reads the trail.
func UserActor() events.Actor {
	return events.Actor{Kind: "user", UID: os.Getuid()}
}

// SeedDirs are the read-only seed directories FLEDGE_SEED_DIR lists.
func SeedDirs(getenv func(string) string) []string {
	var out []string
	for _, d := range filepath.SplitList(getenv(runner.EnvSeedDir)) {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// UnconfinedBy says who turned kernel confinement off ("" when it is on).
// A value other than on or off is refused where plugins run (NewRunner).
func UnconfinedBy(getenv func(string) string) string {
	if getenv(EnvConfine) == "off" {
		return EnvConfine + "=off"
	}
	return ""
}
