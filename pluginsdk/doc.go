// Package pluginsdk is the Go SDK for writing fledge plugins that speak the
// fledge-v1 protocol: fledge starts the plugin, sends an init message on its
// stdin, and then shows what the plugin writes on stdout (output, logs,
// progress) and answers its requests (prompts, store, exec, metadata).
//
// A complete plugin:
//
//	package main
//
//	import (
//		"github.com/corvidlabs/fledge-go/pluginsdk"
//		"github.com/corvidlabs/fledge-go/protocol"
//	)
//
//	func main() {
//		pluginsdk.Main(func(p *pluginsdk.IO, init *protocol.Init) error {
//			name, err := p.Prompt("Who should I greet?", "world", protocol.ValidateNonEmpty)
//			if err != nil {
//				return err // canceled, or fledge went away
//			}
//			return p.Outputf("Hello, %s!\n", name)
//		})
//	}
//
// with a plugin.toml declaring protocol = "fledge-v1" and a [[commands]]
// entry whose binary is the built program.
//
// Give every question a default: without a terminal (CI, agents, --ni)
// fledge answers with it, and cancels a prompt that has none. A canceled
// request returns an error matching ErrCanceled; Main turns it into exit
// status 130 (or 1). Use Context for long work that Ctrl+C should stop.
//
// The SDK owns stdin and stdout: write diagnostics with Log, or to stderr,
// which fledge never captures. Never print to stdout directly.
//
// The same code runs as a wasm plugin: build it with GOOS=wasip1
// GOARCH=wasm, point the command's binary at the .wasm and declare
// runtime = "wasm". New then talks to fledge through its host functions
// (fledge.send and fledge.recv) instead of stdin and stdout, and fledge runs
// the plugin in its sandbox, answering prompts, exec, store and metadata as
// for a native plugin. Ctrl+C reaches a wasm plugin when it next waits on
// fledge (a wasm plugin's goroutines do not preempt one another).
//
// The wire types live in package protocol, shared with fledge itself; the
// fake host in package plugintest runs a plugin in a test. This package
// depends only on the standard library and protocol.
package pluginsdk
