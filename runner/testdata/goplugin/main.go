// Command goplugin is a fledge-v1 test plugin: its first argument picks a
// behaviour, so one binary covers the runner's end-to-end tests and
// benchmarks.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
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
