package runner

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/manifest"
)

// A probe plugin, and the children it starts, try what a hostile plugin
// would: read keys and cloud credentials, another plugin's files, rewrite
// plugins.toml and the shell's start-up file, write the project, and reach
// loopback servers over TCP, UDP and MPTCP. Each is denied unless its
// profile grants it.
func TestConfinementProbes(t *testing.T) {
	s := confine.Detect()
	if !s.Files {
		t.Skipf("the kernel cannot confine plugins: %s", s.Reason)
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		if _, err := lookPathIn(os.Getenv("PATH"), "python3"); err != nil {
			t.Skip("the probe's sockets need python3")
		}
	}
	cases := []struct {
		name     string
		declares string // the [capabilities] lines of the manifest
		protocol string // "fledge-v1", or "go" for the Go plugin without the protocol
		grants   manifest.Capabilities
		allowed  []string // the probes that succeed; every other is denied
	}{
		{"filesystem none, nothing granted", "filesystem = \"none\"\nnetwork = false", "", manifest.Capabilities{},
			[]string{"write_tmpdir", "write_own_files"}},
		{"project and network declared, not granted", "filesystem = \"project\"\nnetwork = true", "", manifest.Capabilities{},
			[]string{"write_tmpdir", "write_own_files"}},
		{"project and network granted", "filesystem = \"project\"\nnetwork = true", "", manifest.Capabilities{Filesystem: "project", Network: true},
			[]string{"write_tmpdir", "write_own_files", "read_project", "tcp", "udp", "mptcp"}},
		{"project granted, network not", "filesystem = \"project\"\nnetwork = true", "", manifest.Capabilities{Filesystem: "project"},
			[]string{"write_tmpdir", "write_own_files", "read_project"}},
		{"nothing declared, as a Rust-era plugin", "", "", manifest.Capabilities{},
			[]string{"write_tmpdir", "write_own_files", "read_project", "write_project", "tcp", "udp", "mptcp"}},
		{"a Go plugin, project granted, network not", "filesystem = \"project\"\nnetwork = true", "go", manifest.Capabilities{Filesystem: "project"},
			[]string{"write_tmpdir", "write_own_files", "read_project"}},
		{"a Go plugin, nothing declared", "", "go", manifest.Capabilities{},
			[]string{"write_tmpdir", "write_own_files", "read_project", "write_project", "tcp", "udp", "mptcp"}},
		{"a fledge-v1 plugin, filesystem none", "filesystem = \"none\"\nnetwork = false", "fledge-v1", manifest.Capabilities{},
			[]string{"write_tmpdir", "write_own_files"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			home := filepath.Join(e.dir, "home")
			writeFile(t, filepath.Join(home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n", 0o600)
			writeFile(t, filepath.Join(home, ".aws", "credentials"), "[default]\naws_secret_access_key = x\n", 0o600)
			writeFile(t, filepath.Join(home, ".bashrc"), "# rc\n", 0o644)
			other := filepath.Join(e.paths.PluginFilesDir("fledge-plugin-other"), "notes.txt")
			writeFile(t, other, "another plugin's data\n", 0o600)

			tcp, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer tcp.Close()
			udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer udp.Close()
			e.environ = append(e.environ,
				"PROBE_OTHER="+other, "PROBE_FLEDGE_HOME="+e.paths.Root(), "PROBE_PROJECT="+e.project,
				"PROBE_FILES="+e.paths.PluginFilesDir("fledge-plugin-probe"),
				fmt.Sprintf("PROBE_TCP=%d", tcp.Addr().(*net.TCPAddr).Port),
				fmt.Sprintf("PROBE_UDP=%d", udp.LocalAddr().(*net.UDPAddr).Port))

			m := "[plugin]\nname = \"fledge-plugin-probe\"\nversion = \"1.2.3\"\n"
			bin, src, args := "bin/probe.sh", filepath.Join("testdata", "plugins", "probe.sh"), []string(nil)
			if c.protocol == "go" { // the Go test plugin, without the protocol
				bin, src, args = "bin/goplugin", goPlugin, []string{"probe"}
				c.protocol = ""
			}
			if c.protocol != "" {
				m += "protocol = \"" + c.protocol + "\"\n"
				e.environ = append(e.environ, "PROBE_NDJSON=1")
			}
			m += "\n[[commands]]\nname = \"probe\"\nbinary = \"" + bin + "\"\n"
			if c.declares != "" {
				m += "\n[capabilities]\n" + c.declares + "\n"
			}
			// The probe reads where to probe from PROBE_*: granted by
			// name, as a user grants a variable to a plugin that
			// declares none.
			c.grants.Environment = []string{"PROBE_*"}
			e.install(plugin{name: "fledge-plugin-probe", manifest: m, commands: map[string]string{"probe": bin},
				copies: map[string]string{bin: src}, grants: c.grants, protocol: c.protocol})
			before, err := os.ReadFile(e.paths.PluginsFile())
			if err != nil {
				t.Fatal(err)
			}

			res, err := e.run(Request{Command: "probe", Args: args})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("run: %v, exit %d\nstderr:\n%s", err, res.ExitCode, e.stderr)
			}
			got := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(e.stdout.String()), "\n") {
				name, verdict, _ := strings.Cut(l, " ")
				got[name] = verdict
			}
			if len(got) != 12 {
				t.Fatalf("probe output:\n%s\nstderr:\n%s", e.stdout, e.stderr)
			}
			for name, verdict := range got {
				want := "denied"
				for _, a := range c.allowed {
					if a == name {
						want = "ok"
					}
				}
				if verdict != want {
					t.Errorf("%s: %s, want %s", name, verdict, want)
				}
			}

			// What the probes report is what happened.
			if after, _ := os.ReadFile(e.paths.PluginsFile()); string(after) != string(before) {
				t.Error("plugins.toml was changed")
			}
			if rc, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(rc) != "# rc\n" {
				t.Errorf(".bashrc = %q", rc)
			}
			_, statErr := os.Stat(filepath.Join(e.project, "probe.txt"))
			if wrote := statErr == nil; wrote != (got["write_project"] == "ok") {
				t.Errorf("project written: %v, probe says %s", wrote, got["write_project"])
			}
			// A connection or datagram that got through is queued by now:
			// the probe's child exited after sending it.
			_ = tcp.(*net.TCPListener).SetDeadline(time.Now().Add(100 * time.Millisecond))
			conn, aerr := tcp.Accept()
			if aerr == nil {
				conn.Close()
			}
			if (aerr == nil) != (got["tcp"] == "ok") {
				t.Errorf("TCP connection accepted: %v, probe says %s", aerr == nil, got["tcp"])
			}
			_ = udp.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			_, _, rerr := udp.ReadFrom(make([]byte, 16))
			if (rerr == nil) != (got["udp"] == "ok") {
				t.Errorf("UDP datagram received: %v, probe says %s", rerr == nil, got["udp"])
			}
		})
	}
}

func lookPathIn(path, name string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// Turned off, a plugin runs as before, and the run says so.
func TestConfinementTurnedOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := filepath.Join(e.dir, "home", ".ssh", "id_rsa")
	writeFile(t, key, "KEY\n", 0o600)
	m := "[plugin]\nname = \"fledge-plugin-probe\"\nversion = \"1.2.3\"\n\n[[commands]]\nname = \"probe\"\nbinary = \"bin/goplugin\"\n\n[capabilities]\nfilesystem = \"none\"\n"
	e.install(plugin{name: "fledge-plugin-probe", manifest: m, commands: map[string]string{"probe": "bin/goplugin"},
		copies: map[string]string{"bin/goplugin": goPlugin}})
	r := e.runner()
	r.Unconfined = "FLEDGE_CONFINE=off"
	res, err := e.runWith(r, Request{Command: "probe", Args: []string{"probe"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: %v, exit %d\n%s", err, res.ExitCode, e.stderr)
	}
	if !strings.Contains(e.stdout.String(), "read_ssh ok\n") {
		t.Errorf("unconfined probe:\n%s", e.stdout)
	}
	if want := "fledge: plugin fledge-plugin-probe runs unconfined: turned off by FLEDGE_CONFINE=off; it gets your whole environment\n"; e.stderr.String() != want {
		t.Errorf("stderr = %q, want %q", e.stderr, want)
	}
}
