package confine

import (
	"os"
	"path/filepath"
)

// Temp is the private temporary directory of one confined run: its TMPDIR,
// granted read-write (Places.Temp). Release it once the run has ended.
type Temp struct {
	// Path is the directory.
	Path string
	// held is dir of TakeTemp, open and locked for this run; nil when
	// Path was made for this run alone.
	held *os.File
}

// TakeTemp gives a confined run of plugin name its TMPDIR. dir, the
// plugin's own (home.Paths' PluginTempDir, beside its files, in a
// directory no profile grants), is taken by one run at a time: made
// when missing, locked (flock), emptied, and emptied again and let go by
// Release. While another run holds it (fledge mcp runs a plugin's
// commands at once), or where it cannot be taken, the run gets a
// directory made for it alone in os.TempDir, which Release removes.
//
// Making and removing a directory for every run, as fledge did, cost each
// run an inode allocated and freed: on ext4 0.1 to 0.2 ms of CPU and up to
// 0.6 ms of wall time (bench/confine.sh); taking dir costs a few system
// calls. Between runs dir is empty, as if removed: what a run left (a
// crash before Release) is removed when the next one takes it.
//
// A dir longer than MaxTempLen (a long FLEDGE_HOME, a long plugin name,
// macOS's "~/Library/Application Support") leaves a program too little
// room for its UNIX sockets below it: short (home.Paths'
// PluginShortTempDir, in FLEDGE_HOME too) stands in for it, taken the
// same way, and where that is too long as well the run gets a directory
// of its own in os.TempDir, named short.
func TakeTemp(dir, short, name string) (*Temp, error) {
	if len(dir) > MaxTempLen {
		dir = short
	}
	if len(dir) <= MaxTempLen {
		if t := takeHeld(dir); t != nil {
			return t, nil
		}
	}
	pattern := "fledge-" + name + "-"
	if len(filepath.Join(os.TempDir(), pattern))+len("4294967295") > MaxTempLen {
		pattern = "fledge-"
	}
	p, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, err
	}
	return &Temp{Path: p}, nil
}

// MaxTempLen is the longest TMPDIR a run is given where it can be helped.
// Programs make UNIX sockets below TMPDIR (Python's multiprocessing
// "/pymp-xxxxxxxx/listener-xxxxxxxx", 32 bytes; ssh-agent's
// "/ssh-XXXXXXXXXX/agent.<pid>"; tmux's "/tmux-<uid>/default"), and a
// socket's path has at most 107 bytes on Linux, 103 on macOS and the
// BSDs (sun_path, less its NUL): a longer TMPDIR leaves them too little
// room to bind.
const MaxTempLen = sunPath - 1 - 32

// Release ends the run's use of its directory: dir of TakeTemp is emptied
// and free for the next run, a directory made for the run alone removed.
func (t *Temp) Release() {
	if t.held == nil {
		_ = os.RemoveAll(t.Path)
		return
	}
	_ = t.empty() // what stays, the next run removes
	_ = t.held.Close()
}

// empty removes what is in the held directory. The plugin cannot put
// another directory or a link in its place (no profile grants its
// parent), and os.RemoveAll removes a link in it, not what the link
// points to: the plugin can make fledge remove nothing else.
func (t *Temp) empty() error {
	if _, err := t.held.Seek(0, 0); err != nil {
		return err
	}
	names, err := t.held.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := os.RemoveAll(filepath.Join(t.Path, n)); err != nil {
			return err
		}
	}
	return nil
}
