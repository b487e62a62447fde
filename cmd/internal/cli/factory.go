package cli

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Factory carries what commands need from the outside world. Tests replace
// its fields; commands take only what they use.
type Factory struct {
	IO      *IOStreams
	Version string
	Now     func() time.Time
	// Prompter asks a human; only used when IO.CanPrompt().
	Prompter Prompter
	// Getwd is the directory fledge runs in.
	Getwd func() (string, error)
	// SystemPolicy is the system policy file's path (policy.SystemPath();
	// tests point it elsewhere: it is never read from the environment).
	SystemPolicy string
	// HTTPClient, when set, fetches the admin policy's revocation lists
	// (tests trust a loopback server's certificate with it).
	HTTPClient *http.Client
	// interrupts counts the user's Ctrl+C (Main catches them).
	interrupts *fastrun.Interrupts
}

// NewFactory returns the production wiring.
func NewFactory(s *IOStreams, version string) *Factory {
	return &Factory{
		IO:       s,
		Version:  version,
		Now:      time.Now,
		Prompter: newHuhPrompter(s),
		Getwd:    os.Getwd,

		SystemPolicy: policy.SystemPath(),

		interrupts: fastrun.NewInterrupts(),
	}
}

// Getenv reads the environment through the IO streams, so tests control it.
func (f *Factory) Getenv(k string) string { return f.IO.getenv(k) }

// Paths locates FLEDGE_HOME.
func (f *Factory) Paths() (home.Paths, error) { return home.FromEnv(f.Getenv) }

// Lockfile opens plugins.toml, first recovering any plugin an interrupted
// fledge left half-changed, so that no command shows or checks a record
// whose tree is in the trash. A recovery that fails is reported and the
// command goes on: what it shows then says what is wrong.
func (f *Factory) Lockfile() (*lockfile.Store, home.Paths, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, p, err
	}
	store := lockfile.NewStore(p.PluginsFile(), p.PluginsLock())
	if err := recoverInterrupted(f, p, store); err != nil {
		st := f.IO.ErrStyle()
		fmt.Fprintf(f.IO.ErrOut, "%s %s\n%s %s\n", st.Warn("warning:"), errorText(err.Error()), st.Info("hint:"), errorText(errorHint(err)))
	}
	return store, p, nil
}

// recoverInterrupted recovers what an interrupted install, update or
// remove left half-done (see install.RecoverInterrupted) and says so.
func recoverInterrupted(f *Factory, p home.Paths, store *lockfile.Store) error {
	names, err := install.RecoverInterrupted(p, store)
	if len(names) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "note: recovered %s from an interrupted fledge\n", termsafe.Line(strings.Join(names, ", ")))
	}
	return err
}
