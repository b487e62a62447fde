package scaffold

import (
	"strings"
	"sync"
)

// manifestBody is the plugin.toml both languages share; the Go plugin adds
// its build hook.
const manifestBody = `[plugin]
name = "%PLUGIN%"
version = "0.1.0"
description = %DESC_TOML%
author = ""
protocol = "fledge-v1"

[[commands]]
name = "%NAME%"
description = "Say hello"
binary = "bin/%NAME%"
args = [
  { name = "who", type = "string", required = false, description = "Who to greet" },
]
`

var commonFiles = []file{
	{path: ".gitignore", mode: 0o644, body: "/bin/*.exe\n/bin/*.wasm\n/dist/\n"},
	{path: "README.md", mode: 0o644, body: `# %PLUGIN%

%DESC%

A [fledge](https://github.com/CorvidLabs/fledge) plugin adding the ` + "`%NAME%`" + ` command.

    fledge plugins install ./%PLUGIN%
    fledge %NAME% world

It speaks the fledge-v1 protocol: fledge sends one ` + "`init`" + ` line on stdin, the plugin
writes one JSON message per line on stdout (` + "`output`, `log`, `prompt`, …" + `) and exits.
Capabilities it needs (exec, store, metadata) go in ` + "`[capabilities]`" + ` of plugin.toml;
users approve them at install.

Check the manifest with ` + "`fledge plugins validate`" + `.
`},
}

var shellFiles = []file{
	{path: "plugin.toml", mode: 0o644, body: manifestBody},
	{path: "bin/NAME", mode: 0o755, body: `#!/bin/sh
# A fledge-v1 plugin: read the init message, answer with output and log lines.
set -eu

read -r init
# fledge passes the command's arguments on argv and in the init message's
# "args" (the Rust fledge only in init: the sed below reads simple ones).
who=${1:-}
[ -n "$who" ] || who=$(printf '%s' "$init" | sed -n 's/.*"args":\["\([^"\\]*\)".*/\1/p')
[ -n "$who" ] || who="world"

# Escape backslashes and quotes so the text is valid JSON.
esc() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

printf '{"type":"log","level":"info","message":"greeting %s"}\n' "$(esc "$who")"
printf '{"type":"output","text":"Hello, %s!\\n"}\n' "$(esc "$who")"
`},
}

var goFiles = []file{
	{path: "plugin.toml", mode: 0o644, body: manifestBody + "\n[hooks]\nbuild = \"go build -o bin/%NAME% .\"\n"},
	{path: "go.mod", mode: 0o644, body: "module %PLUGIN%\n\ngo 1.22\n"},
	{path: "main.go", mode: 0o644, body: `// Command %NAME% is a fledge-v1 plugin: it reads the init message from
// stdin and writes one JSON message per line to stdout.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

type initMessage struct {
	Command string   ` + "`json:\"command\"`" + `
	Args    []string ` + "`json:\"args\"`" + `
}

func send(msg map[string]any) {
	line, _ := json.Marshal(msg)
	os.Stdout.Write(append(line, '\n'))
}

func main() {
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		fmt.Fprintln(os.Stderr, "%NAME%: run me through fledge: fledge %NAME%")
		os.Exit(2)
	}
	var init initMessage
	if err := json.Unmarshal(line, &init); err != nil {
		fmt.Fprintln(os.Stderr, "%NAME%: bad init message:", err)
		os.Exit(2)
	}
	who := "world"
	if len(init.Args) > 0 {
		who = init.Args[0]
	}
	send(map[string]any{"type": "log", "level": "info", "message": "greeting " + who})
	send(map[string]any{"type": "output", "text": "Hello, " + who + "!\n"})
}
`},
}

// wasmFiles is a Go plugin for fledge's wasm sandbox: built with
// GOOS=wasip1 GOARCH=wasm, talking to fledge through its host functions
// (go:wasmimport), standard library only. It is made on first use: its
// plugin.toml is derived from manifestBody, work every fledge start would
// otherwise pay.
var wasmFiles = sync.OnceValue(func() []file {
	return []file{
		{path: "plugin.toml", mode: 0o644, body: strings.NewReplacer(`protocol = "fledge-v1"`, `protocol = "fledge-v1"
runtime = "wasm"`, `binary = "bin/%NAME%"`, `binary = "bin/%NAME%.wasm"`).Replace(manifestBody) + `
[hooks]
build = "GOOS=wasip1 GOARCH=wasm go build -o bin/%NAME%.wasm ."

[capabilities]
# The sandbox's own limits: "project" mounts the project read-only at
# /project, "plugin" also gives a private directory at /plugin.
filesystem = "none"
`},
		{path: "go.mod", mode: 0o644, body: "module %PLUGIN%\n\ngo 1.22\n"},
		{path: "main.go", mode: 0o644, body: `//go:build wasip1

// Command %NAME% is a fledge-v1 plugin that runs in fledge's wasm sandbox.
// Build it with: GOOS=wasip1 GOARCH=wasm go build -o bin/%NAME%.wasm .
//
// It talks to fledge through the host functions of module "fledge": send
// writes one JSON message, recv reads the next (init first, then the answer
// to each request). It cannot touch files, the network or the environment
// unless its grants allow it.
package main

import (
	"encoding/json"
	"os"
	"unsafe"
)

//go:wasmimport fledge send
func hostSend(ptr unsafe.Pointer, n uint32)

//go:wasmimport fledge recv
func hostRecv(ptr unsafe.Pointer, max uint32) int32

type initMessage struct {
	Command string   ` + "`json:\"command\"`" + `
	Args    []string ` + "`json:\"args\"`" + `
}

func send(msg map[string]any) {
	line, _ := json.Marshal(msg)
	hostSend(unsafe.Pointer(&line[0]), uint32(len(line)))
}

// recv reads one message; a long one arrives over several calls.
func recv() []byte {
	var msg []byte
	buf := make([]byte, 64<<10)
	for {
		n := hostRecv(unsafe.Pointer(&buf[0]), uint32(len(buf)))
		if n <= 0 {
			return msg
		}
		msg = append(msg, buf[:n]...)
		if int(n) < len(buf) || json.Valid(msg) {
			return msg
		}
	}
}

func main() {
	var init initMessage
	if err := json.Unmarshal(recv(), &init); err != nil {
		os.Stderr.WriteString("%NAME%: run me through fledge: fledge %NAME%\n")
		os.Exit(2)
	}
	who := "world"
	if len(init.Args) > 0 {
		who = init.Args[0]
	}
	send(map[string]any{"type": "log", "level": "info", "message": "greeting " + who})
	send(map[string]any{"type": "output", "text": "Hello, " + who + "!\n"})
}
`},
	}
})
