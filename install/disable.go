package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// DisableChange is what SetDisabled did.
type DisableChange struct {
	Plugin, Version string
	// Disabled is the plugin's state now (lockfile.Plugin.Disabled: ""
	// when enabled); Changed says it was not so before.
	Disabled string
	Changed  bool
}

// SetDisabled disables one installed plugin (off), or enables it again,
// in one transaction under the tree lock: its plugins.toml record says so,
// the grant log records who and when, and its command links in BinDir go
// (or come back). A disabled plugin keeps its tree, grants and data, but
// nothing of it runs: the runner refuses its commands, completion, help's
// command list and the tool catalog leave them out, update and reinstall
// refuse it, and removing it runs no post_remove hook.
func (in *Installer) SetDisabled(name string, off bool) (*DisableChange, error) {
	unlock, err := lockedfile.MutexAt(in.Paths.TreeLock()).Lock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", in.Paths.TreeLock(), err)
	}
	defer unlock()
	if err := recoverLocked(in.Paths, in.Store); err != nil {
		return nil, err
	}
	res := &DisableChange{}
	var before, after lockfile.Plugin
	// Links go before the record lands (a crash between leaves an enabled
	// plugin without links, never a disabled one with them) and come back
	// after it; a failed write puts the removed ones back.
	var removed map[string]string
	err = updateLogged(in.Store, in.Journal, func(file *lockfile.File) error {
		p, err := file.Resolve(name)
		if err != nil {
			return err
		}
		res.Plugin, res.Version = p.Name, p.Version
		before = *p
		if off == p.IsDisabled() {
			res.Disabled = p.Disabled()
			return errNoChange
		}
		p.DisabledBy, p.DisabledAt = in.offStamp(off)
		if off {
			removed = unlinkPlugin(in.Paths, p)
		}
		after, res.Disabled, res.Changed = *p, p.Disabled(), true
		return nil
	}, func() []grantlog.Record {
		j := journal{action: grantlog.ActionEnable, note: "enabled again: its commands, tools and hooks are reachable"}
		if off {
			j = journal{action: grantlog.ActionDisable, note: "disabled: no command, completion, tool or hook of it is reachable"}
		}
		return []grantlog.Record{recordOf(j, in.Settings.Tier(&before), &before, &after)}
	})
	if err != nil {
		for l, t := range removed {
			os.Symlink(t, l)
		}
		if errors.Is(err, errNoChange) {
			return res, nil
		}
		return nil, err
	}
	if !off {
		linkRecorded(in.Paths, &after)
	}
	return res, nil
}

// unlinkPlugin removes the links in BinDir (fledge's and the Rust
// fledge's) that point into p's tree, and returns them with their targets.
func unlinkPlugin(paths home.Paths, p *lockfile.Plugin) map[string]string {
	removed := map[string]string{}
	dir := paths.PluginDir(p.Name)
	for _, c := range p.Commands {
		for _, l := range []string{paths.CommandLink(c), paths.RustCommandLink(c)} {
			t, err := os.Readlink(l)
			if err != nil {
				continue
			}
			if rel, err := filepath.Rel(dir, t); err != nil || !filepath.IsLocal(rel) {
				continue // not the plugin's: the user's link stays
			}
			if os.Remove(l) == nil {
				removed[l] = t
			}
		}
	}
	return removed
}

// linkRecorded gives p's recorded commands their links in BinDir where
// none is, from the command details recorded at install (or, in an older
// record, its installed manifest). A disabled plugin gets none.
func linkRecorded(paths home.Paths, p *lockfile.Plugin) {
	if p.IsDisabled() {
		return
	}
	cmds := p.CommandDetails
	if len(cmds) == 0 { // an older record: the binaries are in the manifest
		if m, err := manifest.Load(paths.PluginDir(p.Name)); err == nil {
			for _, c := range m.Commands {
				if contains(p.Commands, c.Name) {
					cmds = append(cmds, c)
				}
			}
		}
	}
	for _, c := range cmds {
		link := paths.CommandLink(c.Name)
		if _, err := os.Lstat(link); err == nil || manifest.CheckBinaryPath(c.Binary) != "" {
			continue
		}
		if _, err := os.Stat(paths.PluginDir(p.Name)); err != nil {
			continue
		}
		os.MkdirAll(paths.BinDir(), 0o755)
		os.Symlink(filepath.Join(paths.PluginDir(p.Name), filepath.FromSlash(c.Binary)), link)
	}
}
