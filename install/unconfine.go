package install

import (
	"errors"
	"fmt"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
)

// ConfinementChange is what SetConfinement did.
type ConfinementChange struct {
	Plugin, Version string
	// Unconfined is the plugin's state now (lockfile.Plugin.Unconfined:
	// "" when the kernel confines it); Changed says it was not so before.
	Unconfined string
	Changed    bool
}

// SetConfinement turns kernel confinement off for one installed native
// plugin (off), or back on, in its plugins.toml record, and writes the
// change to the grant log (who and when, as for grants). It applies from
// the plugin's next run, and to its hooks on update and removal. Turning
// it off is refused where the admin policy's [confinement] allow_off is
// false; turning it back on never is.
func (in *Installer) SetConfinement(name string, off bool) (*ConfinementChange, error) {
	if off {
		if d := in.policy().CheckOff("fledge plugins unconfine"); d != nil {
			return nil, policy.Deny(name, *d)
		}
	}
	unlock, err := lockedfile.MutexAt(in.Paths.TreeLock()).Lock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", in.Paths.TreeLock(), err)
	}
	defer unlock()
	if err := recoverLocked(in.Paths, in.Store); err != nil {
		return nil, err
	}
	res := &ConfinementChange{}
	var before, after lockfile.Plugin
	err = updateLogged(in.Store, in.Journal, func(file *lockfile.File) error {
		p, err := file.Resolve(name)
		if err != nil {
			return err
		}
		res.Plugin, res.Version = p.Name, p.Version
		if p.Runtime == manifest.RuntimeWasm {
			return fmt.Errorf("%s is a wasm plugin: fledge's sandbox confines it, not the kernel, and that cannot be turned off", p.Name)
		}
		before = *p
		if off == (p.UnconfinedBy != "") {
			res.Unconfined = p.Unconfined()
			return errNoChange
		}
		p.UnconfinedBy, p.UnconfinedAt = in.offStamp(off)
		after, res.Unconfined, res.Changed = *p, p.Unconfined(), true
		return nil
	}, func() []grantlog.Record {
		j := journal{action: grantlog.ActionConfine, note: "kernel confinement turned back on"}
		if off {
			j = journal{action: grantlog.ActionUnconfine, note: "kernel confinement turned off for this plugin"}
		}
		return []grantlog.Record{recordOf(j, in.Settings.Tier(&before), &before, &after)}
	})
	if err != nil && !errors.Is(err, errNoChange) {
		return nil, err
	}
	return res, nil
}

// SetConfinementAll turns kernel confinement off for every native plugin
// (off), or back on, in plugins.toml, and writes the change to the grant
// log (who and when). It applies from each plugin's next run and to its
// hooks, until turned back on; a plugin's own switch (SetConfinement)
// stays as it was. Turning it off is refused where the admin policy's
// [confinement] allow_off is false; turning it back on never is.
func (in *Installer) SetConfinementAll(off bool) (*ConfinementChange, error) {
	if off {
		if d := in.policy().CheckOff("fledge plugins unconfine --all"); d != nil {
			return nil, policy.Deny("", *d)
		}
	}
	unlock, err := lockedfile.MutexAt(in.Paths.TreeLock()).Lock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", in.Paths.TreeLock(), err)
	}
	defer unlock()
	if err := recoverLocked(in.Paths, in.Store); err != nil {
		return nil, err
	}
	res := &ConfinementChange{}
	err = updateLogged(in.Store, in.Journal, func(file *lockfile.File) error {
		if off == (file.UnconfinedBy != "") {
			res.Unconfined = file.Unconfined()
			return errNoChange
		}
		file.UnconfinedBy, file.UnconfinedAt = in.offStamp(off)
		res.Unconfined, res.Changed = file.Unconfined(), true
		return nil
	}, func() []grantlog.Record {
		if off {
			return []grantlog.Record{{Action: grantlog.ActionUnconfine, Note: "kernel confinement turned off for every plugin (fledge plugins unconfine --all)"}}
		}
		return []grantlog.Record{{Action: grantlog.ActionConfine, Note: "kernel confinement turned back on for every plugin (fledge plugins confine --all)"}}
	})
	if err != nil && !errors.Is(err, errNoChange) {
		return nil, err
	}
	return res, nil
}

// offStamp is who turns a switch off and when, as plugins.toml records it
// (off: confinement turned off, a plugin disabled), or nothing (turning it
// back on).
func (in *Installer) offStamp(off bool) (by, at string) {
	if !off {
		return "", ""
	}
	user, uid := grantlog.CurrentUser()
	if user == "" {
		user = fmt.Sprintf("uid %d", uid)
	}
	return user, in.now().UTC().Format(time.RFC3339)
}
