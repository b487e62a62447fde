//go:build wasip1

// Command wasmdriver is a scripted wasm test plugin for fledge's runner,
// built with GOOS=wasip1 GOARCH=wasm. Each argument is one step, run in
// order; what it receives is reported as output ("<step> <n> <data>").
// It imports fledge's host functions directly, as a Rust plugin does.
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

//go:wasmimport fledge send
func hostSend(ptr unsafe.Pointer, n int32)

//go:wasmimport fledge recv
func hostRecv(ptr unsafe.Pointer, max int32) int32

//go:wasmimport fledge exit
func hostExit(code int32)

//go:wasmimport fledge exec
func hostExec(ptr unsafe.Pointer, n int32) int32

//go:wasmimport fledge store_set
func hostStoreSet(ptr unsafe.Pointer, n int32)

//go:wasmimport fledge store_get
func hostStoreGet(ptr unsafe.Pointer, n int32) int32

//go:wasmimport fledge metadata
func hostMetadata(ptr unsafe.Pointer, n int32) int32

func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		var z [1]byte
		return unsafe.Pointer(&z[0])
	}
	return unsafe.Pointer(&b[0])
}

func send(s string) { b := []byte(s); hostSend(ptr(b), int32(len(b))) }

func report(step string, n int32, data string) {
	b, _ := jsonString(fmt.Sprintf("%s %d %s\n", step, n, data))
	send(`{"type":"output","text":` + b + `}`)
}

// jsonString quotes s as JSON (no encoding/json: keeps the module small).
func jsonString(s string) (string, error) {
	return strconv.Quote(s), nil
}

// recv reads one message of up to max bytes per call, until a call returns
// less than max.
func recv(max int) (int32, string) {
	var all []byte
	var total int32
	buf := make([]byte, max)
	for {
		n := hostRecv(ptr(buf), int32(max))
		if n <= 0 {
			return total, string(all)
		}
		total += n
		all = append(all, buf[:n]...)
		if int(n) < max {
			return total, string(all)
		}
	}
}

// result reads n bytes of a synchronous call's result.
func result(n int32) string {
	if n <= 0 {
		return ""
	}
	buf := make([]byte, n)
	got := hostRecv(ptr(buf), n)
	return string(buf[:max(got, 0)])
}

func main() {
	for _, step := range os.Args[1:] {
		verb, arg, _ := strings.Cut(step, ":")
		switch verb {
		case "init":
			n, data := recv(65536)
			report("init", n, data)
		case "recv":
			max := 65536
			if arg != "" {
				max, _ = strconv.Atoi(arg)
			}
			n, data := recv(max)
			report("recv", n, data)
		case "recv1":
			// One call only, with a buffer of arg bytes.
			m, _ := strconv.Atoi(arg)
			buf := make([]byte, m)
			n := hostRecv(ptr(buf), int32(m))
			report("recv1", n, string(buf[:max(n, 0)]))
		case "send":
			send(arg)
		case "exec":
			b := []byte(arg)
			n := hostExec(ptr(b), int32(len(b)))
			report("exec", n, result(n))
		case "store_set":
			b := []byte(arg)
			hostStoreSet(ptr(b), int32(len(b)))
		case "store_get":
			b := []byte(arg)
			n := hostStoreGet(ptr(b), int32(len(b)))
			report("store_get", n, result(n))
		case "metadata":
			b := []byte(arg)
			n := hostMetadata(ptr(b), int32(len(b)))
			report("metadata", n, result(n))
		case "exit":
			c, _ := strconv.Atoi(arg)
			hostExit(int32(c))
		case "osexit":
			c, _ := strconv.Atoi(arg)
			os.Exit(c)
		case "stdout":
			fmt.Print(arg)
		case "stderr":
			fmt.Fprint(os.Stderr, arg)
		case "args":
			report("args", int32(len(os.Args)), strings.Join(os.Args, "|"))
		case "env":
			report("env", int32(len(os.Environ())), strings.Join(os.Environ(), "|"))
		case "write":
			path, text, _ := strings.Cut(arg, "=")
			err := os.WriteFile(path, []byte(text), 0o644)
			report("write", 0, errText(err))
		case "read":
			b, err := os.ReadFile(arg)
			if err != nil {
				report("read", -1, errText(err))
			} else {
				report("read", int32(len(b)), string(b))
			}
		case "list":
			// list:DIR reads each entry of DIR as a scanner would: stat,
			// then open and read what is not a directory.
			entries, err := os.ReadDir(arg)
			if err != nil {
				report("list", -1, errText(err))
				break
			}
			var seen []string
			for _, e := range entries {
				p := arg + "/" + e.Name()
				res := "dir"
				if _, err := os.Stat(p); err != nil {
					res = "stat " + errText(err)
				} else if !e.IsDir() {
					b, err := os.ReadFile(p)
					res = errText(err)
					if err == nil {
						res = string(b)
					}
				}
				seen = append(seen, e.Name()+"="+res)
			}
			report("list", int32(len(seen)), strings.Join(seen, "|"))
		case "symlink":
			target, link, _ := strings.Cut(arg, "=")
			report("symlink", 0, errText(os.Symlink(target, link)))
		case "loop":
			for {
			}
		case "spin":
			ms, _ := strconv.Atoi(arg)
			end := time.Now().Add(time.Duration(ms) * time.Millisecond)
			for time.Now().Before(end) {
			}
			report("spin", 0, "done")
		case "sleep":
			ms, _ := strconv.Atoi(arg)
			time.Sleep(time.Duration(ms) * time.Millisecond)
			report("sleep", 0, "done")
		case "grow":
			var keep [][]byte
			for {
				keep = append(keep, make([]byte, 16<<20))
			}
		case "huge":
			n, _ := strconv.Atoi(arg)
			b := make([]byte, n)
			for i := range b {
				b[i] = 'x'
			}
			hostSend(ptr(b), int32(n))
		case "oob-send":
			hostSend(unsafe.Pointer(uintptr(0x7fff0000)), 100)
		case "oob-recv":
			hostRecv(unsafe.Pointer(uintptr(0x7fff0000)), 100)
		case "output":
			// output:N[:SIZE] sends N output messages of SIZE bytes of
			// text (the runner's goplugin "flood", for the benchmarks).
			ns, sizes, _ := strings.Cut(arg, ":")
			n, _ := strconv.Atoi(ns)
			size := 5
			if sizes != "" {
				size, _ = strconv.Atoi(sizes)
			}
			text, _ := jsonString(strings.Repeat("y", max(size-1, 0)) + "\n")
			msg := []byte(`{"type":"output","text":` + text + `}`)
			for i := 0; i < n; i++ {
				hostSend(ptr(msg), int32(len(msg)))
			}
		case "panic":
			panic("driver panics")
		default:
			report("unknown-step", 0, step)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return "error: " + err.Error()
}
