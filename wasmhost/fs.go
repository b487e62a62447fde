package wasmhost

import (
	"io/fs"
	"os"
	"path"
	"strings"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"
)

// The two directories a plugin may see, /project and /plugin, are host
// directories other processes write to: the project (the user's tools, a
// clone) and the plugin's data directory (its own approved hooks). So what
// the plugin reaches through them is held to two rules, whatever was
// planted there:
//
//   - nothing leads outside the directory: /project is opened through
//     os.Root; /plugin refuses every path that passes through a symlink
//     (the plugin cannot create one there, so any link was planted);
//   - nothing opened can block: only regular files and directories are
//     opened, and with O_NONBLOCK, so that a FIFO (or a file swapped for
//     one after the check) fails at once instead of holding the plugin's
//     goroutine in openat, where no limit of fledge's can reach it.
//
// wazero's own adapter opens a file to stat it; these views stat without
// opening.

// openable reports whether a file of this mode may be opened: a regular
// file or a directory, never a FIFO, socket or device.
func openable(m fs.FileMode) bool { return m.IsRegular() || m.IsDir() }

// projectView is /project: the directory read-only, through os.Root.
func projectView(root *os.Root) experimentalsys.FS {
	return &sysfs.ReadFS{FS: &rootView{AdaptFS: &sysfs.AdaptFS{FS: rootOpener{root}}, root: root}}
}

type rootView struct {
	*sysfs.AdaptFS
	root *os.Root
}

func (v *rootView) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	return statOf(v.root.Stat(relative(p)))
}

func (v *rootView) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	return statOf(v.root.Lstat(relative(p)))
}

func statOf(fi fs.FileInfo, err error) (sys.Stat_t, experimentalsys.Errno) {
	if err != nil {
		return sys.Stat_t{}, experimentalsys.UnwrapOSError(err)
	}
	return sys.NewStat_t(fi), 0
}

// relative is a guest path (relative to the mount, maybe with a leading
// slash) as os.Root and fs.FS name it.
func relative(p string) string {
	p = path.Clean("/" + p)
	if p == "/" {
		return "."
	}
	return p[1:]
}

// rootOpener opens only what openable allows, without blocking.
type rootOpener struct{ root *os.Root }

func (o rootOpener) Open(name string) (fs.File, error) {
	fi, err := o.root.Stat(name)
	if err != nil {
		return nil, err
	}
	if !openable(fi.Mode()) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	f, err := o.root.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil || !openable(fi.Mode()) {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return f, nil
}

// pluginView is /plugin: dir read-write, refusing any path through a
// symlink and any open of what is neither a file nor a directory. A link
// swapped in between the check and the use, by a process running beside
// the plugin, is the one case left: such a process already has the user's
// powers, and the final component is opened with O_NOFOLLOW.
func pluginView(dir string, root *os.Root) experimentalsys.FS {
	return &linkFree{FS: sysfs.DirFS(dir), root: root}
}

type linkFree struct {
	experimentalsys.FS
	root *os.Root
}

// check refuses a path that passes through a symlink (the last component
// too when last is set) or, when open is set, names something openable
// refuses.
func (l *linkFree) check(p string, last, open bool) experimentalsys.Errno {
	rel := relative(p)
	if rel == "." {
		return 0
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		final := i == len(parts)-1
		fi, err := l.root.Lstat(strings.Join(parts[:i+1], "/"))
		if err != nil {
			// What does not exist yet is the call's to report or create.
			return 0
		}
		if fi.Mode()&fs.ModeSymlink != 0 && (!final || last) {
			return experimentalsys.ELOOP
		}
		if final && open && !openable(fi.Mode()) {
			return experimentalsys.EACCES
		}
	}
	return 0
}

func (l *linkFree) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if e := l.check(p, true, true); e != 0 {
		return nil, e
	}
	return l.FS.OpenFile(p, flag|experimentalsys.O_NOFOLLOW|experimentalsys.O_NONBLOCK, perm)
}

func (l *linkFree) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	if e := l.check(p, false, false); e != 0 {
		return sys.Stat_t{}, e
	}
	return l.FS.Lstat(p)
}

func (l *linkFree) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	if e := l.check(p, true, false); e != 0 {
		return sys.Stat_t{}, e
	}
	return l.FS.Stat(p)
}

func (l *linkFree) Mkdir(p string, perm fs.FileMode) experimentalsys.Errno {
	return l.then(l.check(p, true, false), func() experimentalsys.Errno { return l.FS.Mkdir(p, perm) })
}

func (l *linkFree) Chmod(p string, perm fs.FileMode) experimentalsys.Errno {
	return l.then(l.check(p, true, false), func() experimentalsys.Errno { return l.FS.Chmod(p, perm) })
}

func (l *linkFree) Rename(from, to string) experimentalsys.Errno {
	return l.then(l.both(from, to), func() experimentalsys.Errno { return l.FS.Rename(from, to) })
}

func (l *linkFree) Rmdir(p string) experimentalsys.Errno {
	return l.then(l.check(p, false, false), func() experimentalsys.Errno { return l.FS.Rmdir(p) })
}

func (l *linkFree) Unlink(p string) experimentalsys.Errno {
	return l.then(l.check(p, false, false), func() experimentalsys.Errno { return l.FS.Unlink(p) })
}

func (l *linkFree) Link(from, to string) experimentalsys.Errno {
	return l.then(l.both(from, to), func() experimentalsys.Errno { return l.FS.Link(from, to) })
}

// Symlink is refused: nothing the plugin opens through /plugin may lead
// outside it (wazero follows host symlinks).
func (l *linkFree) Symlink(string, string) experimentalsys.Errno { return experimentalsys.EPERM }

func (l *linkFree) Readlink(p string) (string, experimentalsys.Errno) {
	if e := l.check(p, false, false); e != 0 {
		return "", e
	}
	return l.FS.Readlink(p)
}

func (l *linkFree) Utimens(p string, atim, mtim int64) experimentalsys.Errno {
	return l.then(l.check(p, true, false), func() experimentalsys.Errno { return l.FS.Utimens(p, atim, mtim) })
}

func (l *linkFree) both(a, b string) experimentalsys.Errno {
	if e := l.check(a, false, false); e != 0 {
		return e
	}
	return l.check(b, false, false)
}

func (l *linkFree) then(e experimentalsys.Errno, op func() experimentalsys.Errno) experimentalsys.Errno {
	if e != 0 {
		return e
	}
	return op()
}
