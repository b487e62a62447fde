package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/manifest"
)

// tmpdirProbe is a plugin that reports on its TMPDIR: a file written
// there, a UNIX socket bound there by Python's multiprocessing (whose
// "AF_UNIX path too long" below a long TMPDIR this guards against), what
// the previous run left, and whether another plugin's TMPDIR and the
// directory of stand-ins holding both can be read.
const tmpdirProbe = `#!/bin/sh
try() { # try NAME COMMAND
  if sh -c "$2" >/dev/null 2>&1; then echo "$1 ok"; else echo "$1 denied"; fi
}
echo "tmpdir $TMPDIR"
try left 'test -e "$TMPDIR/mark"'
try write_file 'echo probe > "$TMPDIR/mark"'
try bind_socket '"$PROBE_PYTHON" -c "from multiprocessing.connection import Listener; Listener(family=\"AF_UNIX\").close()"'
try read_other 'cat "$PROBE_OTHER/secret.txt"'
try list_other 'ls "$PROBE_OTHER"'
try list_stand_ins 'ls "$PROBE_STAND_INS"'
`

// A plugin whose own TMPDIR is too long for a socket (a long FLEDGE_HOME
// and name) runs, confined by the kernel, in its short stand-in in
// FLEDGE_HOME (home.Paths.PluginShortTempDir): the same one at each run,
// empty, where it writes and binds a socket; another plugin's stand-in,
// and the directory holding them, it cannot read, even in the row that
// grants the shared /tmp.
func TestConfinedLongHomeTMPDIR(t *testing.T) {
	s := confine.Detect()
	if !s.Files {
		t.Skipf("the kernel cannot confine plugins: %s", s.Reason)
	}
	python, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		if python, err = exec.LookPath("python3"); err != nil {
			t.Skip("the socket probe needs python3")
		}
	}
	for _, c := range []struct {
		name, declares string
	}{
		{"filesystem none", "[capabilities]\nfilesystem = \"none\"\n"},
		{"nothing declared, /tmp granted", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			// A FLEDGE_HOME short enough for its stand-ins (t/ and 12 hex
			// digits), where the plugin's own TMPDIR is too long.
			short, err := os.MkdirTemp("", "h")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(short) })
			if e.paths, err = home.New(filepath.Join(short, "fledge")); err != nil {
				t.Fatal(err)
			}
			const name = "fledge-plugin-with-a-rather-long-name"
			own := e.paths.PluginTempDir(name)
			if len(own) <= confine.MaxTempLen {
				t.Fatalf("%s is short enough to be taken itself", own)
			}
			if stand := e.paths.PluginShortTempDir(name); len(stand) > confine.MaxTempLen {
				t.Fatalf("the stand-in %s is too long as well", stand)
			}
			want := e.paths.PluginShortTempDir(name)
			other := e.paths.PluginShortTempDir("fledge-plugin-other")
			if err := os.MkdirAll(other, 0o700); err != nil { // as TakeTemp makes them
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(other, "secret.txt"), "another plugin's\n", 0o600)
			e.environ = append(e.environ, "PROBE_OTHER="+other, "PROBE_STAND_INS="+filepath.Dir(other), "PROBE_PYTHON="+python)
			m := "[plugin]\nname = \"" + name + "\"\nversion = \"1.2.3\"\n\n[[commands]]\nname = \"probe\"\nbinary = \"bin/probe\"\n\n" + c.declares
			e.install(plugin{name: name, manifest: m, commands: map[string]string{"probe": "bin/probe"},
				files:  map[string]string{"bin/probe": tmpdirProbe},
				grants: manifest.Capabilities{Environment: []string{"PROBE_*"}}})

			for run := range 2 {
				e.stdout.Reset()
				res, err := e.run(Request{Command: "probe"})
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("run %d: %v, exit %v\nstderr:\n%s", run, err, res, e.stderr)
				}
				got := map[string]string{}
				for _, l := range strings.Split(strings.TrimSpace(e.stdout.String()), "\n") {
					k, v, _ := strings.Cut(l, " ")
					got[k] = v
				}
				wants := map[string]string{"tmpdir": want, "left": "denied", "write_file": "ok", "bind_socket": "ok",
					"read_other": "denied", "list_other": "denied", "list_stand_ins": "denied"}
				for k, v := range wants {
					if got[k] != v {
						t.Errorf("run %d: %s %s, want %s\nstdout:\n%s\nstderr:\n%s", run, k, got[k], v, e.stdout, e.stderr)
					}
				}
				if des, err := os.ReadDir(want); err != nil || len(des) != 0 {
					t.Errorf("after run %d %s holds %v (%v), want it empty", run, want, des, err)
				}
			}
		})
	}
}
