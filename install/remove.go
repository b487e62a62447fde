package install

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Remover removes installed plugins.
type Remover struct {
	Paths home.Paths
	Store *lockfile.Store
	Log   io.Writer
	Env   []string
	// Unconfined is as Installer.Unconfined, for the post_remove hook.
	Unconfined string
	// Settings answers the trust and the admin policy in force: a
	// post_remove hook runs only if the policy lets the plugin's tier run
	// hooks.
	Settings *settings.Settings
	// PolicyErr is why the policy could not be read, if it could not: the
	// plugin is removed, but its post_remove hook does not run.
	PolicyErr error
	// Journal records the removal (nil: no log); Note is added to the
	// record (sync --prune says so).
	Journal *grantlog.Log
	Note    string
}

// Remove runs the plugin's approved post_remove hook, then removes its
// links, its tree (for a live link, only the link: never the source behind
// it), its data, its decoded plugin.toml in the cache, and its entry. If the hook fails nothing is removed.
func (r *Remover) Remove(ctx context.Context, name string) (*lockfile.Plugin, error) {
	// Say "not installed" before touching a home that may not exist yet.
	if file, err := r.Store.Load(); err != nil {
		return nil, err
	} else if _, err := file.Resolve(name); err != nil {
		return nil, err
	}
	unlock, err := lockedfile.MutexAt(r.Paths.TreeLock()).Lock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", r.Paths.TreeLock(), err)
	}
	defer unlock()
	if err := recoverLocked(r.Paths, r.Store); err != nil {
		return nil, err
	}

	file, err := r.Store.Load()
	if err != nil {
		return nil, err
	}
	p, err := file.Resolve(name)
	if err != nil {
		return nil, err
	}
	entry := *p
	dir := r.Paths.PluginDir(entry.Name)

	real, dirErr := filepath.EvalSymlinks(dir)
	tier := r.Settings.Tier(&entry)
	var denied []policy.Denial
	hook, ok := entry.Hooks[manifest.HookPostRemove]
	if ok && hook != "" {
		if d := r.Settings.Policy().Allows(string(tier), GrantHooks); d != nil {
			denied = append(denied, *d)
		}
	}
	switch {
	case ok && hook != "" && entry.IsDisabled():
		// Off means off, to the end: enable it first to have it clean up.
		if r.Log != nil {
			fmt.Fprintf(r.Log, "warning: %s's post_remove hook is not run: it is disabled (by %s)\n", termsafe.Escape(entry.Name), termsafe.Line(entry.Disabled()))
		}
	case ok && hook != "" && r.PolicyErr != nil:
		if r.Log != nil {
			fmt.Fprintf(r.Log, "warning: %s's post_remove hook is not run: %s\n", termsafe.Escape(entry.Name), termsafe.EscapeText(r.PolicyErr.Error()))
		}
	case len(denied) > 0:
		// Approved once, forbidden now: removing still narrows, so the
		// plugin goes without its hook.
		if r.Log != nil {
			fmt.Fprintf(r.Log, "warning: %s's post_remove hook is not run: %s\n", termsafe.Escape(entry.Name), termsafe.EscapeText(denied[0].Text()))
		}
	case ok && hook != "" && dirErr != nil:
		// Nothing is left for the hook to clean up: remove the record.
		if r.Log != nil {
			fmt.Fprintf(r.Log, "warning: %s's directory is gone (%v); its post_remove hook is skipped\n", entry.Name, dirErr)
		}
	case ok && hook != "" && checkCommand(manifest.HookPostRemove, hook) != nil:
		// Recorded before hooks had to be shown byte-exact: what was
		// approved may not be what runs, so it never runs. Removing the
		// plugin is still safe, and what the user asked for.
		if r.Log != nil {
			fmt.Fprintf(r.Log, "warning: %v\n  %s is removed without it; if you trust the hook and need its clean-up, review it and run it yourself\n", checkCommand(manifest.HookPostRemove, hook), termsafe.Escape(entry.Name))
		}
	case ok && hook != "":
		if r.Log != nil {
			fmt.Fprintf(r.Log, "Running post_remove for %s: %s\n", entry.Name, termsafe.Escape(hook))
		}
		in := (&Installer{Env: r.Env, Paths: r.Paths, Log: r.Log, Unconfined: r.Unconfined, Settings: r.Settings}).forPlugin(&entry)
		env := in.hookEnv(entry.Name, hook, real, r.Settings.Grants(&entry).Capabilities.Environment, entry.Requested.Environment)
		if err := in.runHook(ctx, manifest.HookPostRemove, hook, real, env, r.Log); err != nil {
			return nil, fmt.Errorf("%w; %s was not removed", err, entry.Name)
		}
	}

	tx := &swap{paths: r.Paths, name: entry.Name}
	if err := tx.moveOldAside(); err != nil {
		return nil, err
	}
	tx.unlinkOwned(entry.Commands, dir, r.Paths.CommandLink)
	// A plugin the Rust fledge installed also has its links there.
	tx.unlinkOwned(entry.Commands, dir, r.Paths.RustCommandLink)
	j := journal{action: grantlog.ActionRemove, policy: denied, note: r.Note}
	if ok && hook != "" && entry.IsDisabled() {
		j.note = strings.TrimPrefix(j.note+"; post_remove not run: the plugin is disabled", "; ")
	} else if ok && hook != "" && r.PolicyErr != nil {
		j.note = strings.TrimPrefix(j.note+"; post_remove not run: the admin policy cannot be read", "; ")
	}
	err = updateLogged(r.Store, r.Journal, func(f *lockfile.File) error {
		if !f.Remove(entry.Name) {
			return fmt.Errorf("plugin %q: %w", entry.Name, lockfile.ErrNotInstalled)
		}
		return nil
	}, func() []grantlog.Record { return []grantlog.Record{recordOf(j, tier, &entry, nil)} })
	if err != nil {
		tx.rollback()
		return nil, err
	}
	tx.done()
	os.RemoveAll(r.Paths.DataDir(entry.Name))
	// The run path's decoded plugin.toml would otherwise outlive the plugin.
	os.Remove(r.Paths.DecodedManifestFile(entry.Name))
	// And the short TMPDIR standing in for its own (confine.TakeTemp),
	// empty between runs; t/ too when it was the last.
	os.RemoveAll(r.Paths.PluginShortTempDir(entry.Name))
	os.Remove(filepath.Dir(r.Paths.PluginShortTempDir(entry.Name)))
	// When empty: the last plugin's data, the last Rust link, are gone.
	os.Remove(filepath.Dir(r.Paths.DataDir(entry.Name)))
	os.Remove(r.Paths.RustBinDir())
	return &entry, nil
}

// unlinkOwned removes the command links (named by link) that point into
// dir, leaving links that some other plugin or the user made.
func (s *swap) unlinkOwned(commands []string, dir string, link func(string) string) {
	for _, c := range commands {
		l := link(c)
		t, err := os.Readlink(l)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(dir, t); err != nil || !filepath.IsLocal(rel) {
			continue
		}
		if os.Remove(l) == nil {
			if s.removed == nil {
				s.removed = map[string]string{}
			}
			s.removed[l] = t
		}
	}
}
