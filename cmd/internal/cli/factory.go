package cli

import (
	"os"
	"time"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
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
}

// NewFactory returns the production wiring.
func NewFactory(s *IOStreams, version string) *Factory {
	return &Factory{
		IO:       s,
		Version:  version,
		Now:      time.Now,
		Prompter: newHuhPrompter(s),
		Getwd:    os.Getwd,
	}
}

// Getenv reads the environment through the IO streams, so tests control it.
func (f *Factory) Getenv(k string) string { return f.IO.getenv(k) }

// Paths locates FLEDGE_HOME.
func (f *Factory) Paths() (home.Paths, error) { return home.FromEnv(f.Getenv) }

// Lockfile opens plugins.toml.
func (f *Factory) Lockfile() (*lockfile.Store, home.Paths, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, p, err
	}
	return lockfile.NewStore(p.PluginsFile(), p.PluginsLock()), p, nil
}
