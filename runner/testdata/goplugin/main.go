// Command goplugin is a fledge-v1 test plugin: its first argument picks a
// behaviour, so one binary covers the runner's end-to-end tests and
// benchmarks.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corvidlabs/fledge-go/protocol"
)

var (
	in  = bufio.NewReaderSize(os.Stdin, 1<<20)
	out = bufio.NewWriterSize(os.Stdout, 64<<10)
)

func send(v any) {
	b, _ := json.Marshal(v)
	out.Write(b)
	out.WriteByte('\n')
}

func flush() { out.Flush() }

func recv() map[string]any {
	flush()
	line, err := in.ReadBytes('\n')
	if err != nil {
		os.Exit(3)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		fmt.Fprintln(os.Stderr, "goplugin: bad line:", err)
		os.Exit(4)
	}
	return m
}

func output(s string) { send(map[string]any{"type": protocol.TypeOutput, "text": s}) }

func arg(i int, def int) int {
	if len(os.Args) > i {
		if n, err := strconv.Atoi(os.Args[i]); err == nil {
			return n
		}
	}
	return def
}

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "rawpong": // benchmark baseline: echo each line until EOF
		for {
			line, err := in.ReadBytes('\n')
			if err != nil {
				return
			}
			out.Write(line)
			out.Flush()
		}
	case "rawflood": // benchmark baseline: the flood's bytes, no protocol host
		flood(arg(2, 1000), arg(3, 64))
		flush()
		return
	case "noop-native":
		return
	case "env": // inherited stdio: its environment, a line each
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
		return
	case "probe": // inherited stdio: each probe of probe.sh, run in a child of its own
		for _, name := range probeNames {
			verdict := "denied"
			if exec.Command(os.Args[0], "probe-one", name).Run() == nil {
				verdict = "ok"
			}
			fmt.Println(name, verdict)
		}
		return
	case "probe-one":
		if err := probe(os.Args[2]); err != nil {
			os.Exit(1)
		}
		return
	}

	if mode == "no-read" { // never reads stdin
		output("did not read\n")
		flush()
		os.Exit(arg(2, 0))
	}
	init := recv()
	switch mode {
	case "echo":
		b, _ := json.Marshal(map[string]any{
			"init": init, "argv": os.Args[1:], "plugin_dir": os.Getenv("FLEDGE_PLUGIN_DIR"),
			"ni": os.Getenv("FLEDGE_NON_INTERACTIVE"),
		})
		output(string(b))
	case "exit":
		output("exiting\n")
		flush()
		os.Exit(arg(2, 0))
	case "flood":
		flood(arg(2, 1000), arg(3, 64))
	case "ping": // request round trips
		n := arg(2, 100)
		for i := 0; i < n; i++ {
			send(map[string]any{"type": "confirm", "id": strconv.Itoa(i), "message": "ok?", "default": true})
			r := recv()
			if r["id"] != strconv.Itoa(i) || r["value"] != true {
				fmt.Fprintf(os.Stderr, "goplugin: bad response %v\n", r)
				os.Exit(5)
			}
		}
		output(fmt.Sprintf("pinged %d\n", n))
	case "wait-cancel": // exits 130 once cancelled, reporting the reason
		for {
			m := recv()
			if m["type"] == "cancel" {
				output(fmt.Sprintf("cancelled: %v\n", m["reason"]))
				flush()
				os.Exit(130)
			}
		}
	case "ignore-term": // ignores cancel and SIGTERM: only SIGKILL stops it
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
		output("stubborn\n")
		flush()
		// Or the end of the test that started it: a killed test leaves
		// no orphan behind.
		go func(parent int) {
			for os.Getppid() == parent {
				time.Sleep(time.Second)
			}
			os.Exit(9)
		}(os.Getppid())
		for {
			if _, err := in.ReadBytes('\n'); err != nil {
				time.Sleep(time.Hour)
			}
		}
	case "sleep":
		output("sleeping\n")
		flush()
		time.Sleep(time.Duration(arg(2, 60)) * time.Second)
	case "grandchild": // leaves a grandchild holding stdout open
		output("parent done\n")
		flush()
		c := exec.Command("/bin/sh", "-c", "sleep 30")
		c.Stdout = os.Stdout
		c.Start()
		os.Exit(0)
	case "longline":
		out.WriteString(`{"type":"output","text":"` + strings.Repeat("x", arg(2, 2<<20)) + `"}` + "\n")
	case "unread": // requests without ever reading the answers
		n := arg(2, 100000)
		for i := 0; i < n; i++ {
			send(map[string]any{"type": "load", "id": strconv.Itoa(i), "key": strings.Repeat("k", 200)})
		}
		flush()
		time.Sleep(30 * time.Second)
	case "exec":
		send(map[string]any{"type": "exec", "id": "x", "command": strings.Join(os.Args[2:], " ")})
		b, _ := json.Marshal(recv())
		output(string(b) + "\n")
	default:
		output("unknown mode " + mode + "\n")
		flush()
		os.Exit(2)
	}
	flush()
}

func flood(n, size int) {
	text := strings.Repeat("y", max(size-1, 0)) + "\n"
	b, _ := json.Marshal(map[string]any{"type": "output", "text": text})
	b = append(b, '\n')
	for i := 0; i < n; i++ {
		out.Write(b)
	}
}

// probeNames are probe.sh's probes, in its order.
var probeNames = []string{"read_ssh", "read_aws", "read_other", "write_plugins_toml", "write_bashrc", "read_project",
	"write_project", "write_tmpdir", "write_own_files", "tcp", "udp", "mptcp"}

// probe tries one thing a hostile plugin would, with plain system calls.
func probe(name string) error {
	home, env := os.Getenv("HOME"), os.Getenv
	appendTo := func(path string) error {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		_, err = f.WriteString("probe\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	read := func(path string) error { _, err := os.ReadFile(path); return err }
	switch name {
	case "read_ssh":
		return read(home + "/.ssh/id_rsa")
	case "read_aws":
		return read(home + "/.aws/credentials")
	case "read_other":
		return read(env("PROBE_OTHER"))
	case "write_plugins_toml":
		return appendTo(env("PROBE_FLEDGE_HOME") + "/plugins.toml")
	case "write_bashrc":
		return appendTo(home + "/.bashrc")
	case "read_project":
		return read(env("PROBE_PROJECT") + "/go.mod")
	case "write_project":
		return appendTo(env("PROBE_PROJECT") + "/probe.txt")
	case "write_tmpdir":
		return appendTo(os.TempDir() + "/probe.txt")
	case "write_own_files":
		return appendTo(env("PROBE_FILES") + "/probe.txt")
	case "tcp":
		c, err := net.DialTimeout("tcp4", "127.0.0.1:"+env("PROBE_TCP"), 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	case "udp":
		c, err := net.Dial("udp4", "127.0.0.1:"+env("PROBE_UDP"))
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("probe"))
		return err
	case "mptcp":
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 262) // IPPROTO_MPTCP
		if err != nil {
			return err
		}
		defer syscall.Close(fd)
		port, _ := strconv.Atoi(env("PROBE_TCP"))
		return syscall.Connect(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	}
	return fmt.Errorf("unknown probe %q", name)
}
