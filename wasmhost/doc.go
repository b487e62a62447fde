// Package wasmhost runs a fledge wasm plugin (runtime = "wasm") in a wazero
// sandbox, so that it looks, to fledge's protocol engine, exactly like a
// plugin process speaking fledge-v1 over its stdin and stdout.
//
// It owns: compiling modules (through wazero's on-disk compilation cache),
// checking that a module is one fledge can run (Check: it compiles, exports
// memory and _start, imports only the fledge host functions and WASI
// preview 1, with the right signatures), the host ABI of the Rust fledge
// (module "fledge": send, recv, exit, exec, store_set, store_get, metadata),
// the WASI sandbox (no environment, argv only, filesystem preopens chosen by
// the caller) and the limits (memory, compute time).
//
// It does not own: the protocol itself, grants, questions, output or
// timeouts of the whole run. Those belong to the runner, which reads the
// instance's Stdout pipe and writes its Stdin pipe as it does a process's:
// send writes one line to Stdout; recv delivers the next line from Stdin;
// the synchronous calls (exec, store_get, metadata) become protocol requests
// with host-chosen ids, and their answers are delivered by the next recv.
// So every grant, denial, prompt and cancel is enforced by the one engine,
// and a denied capability answers as it does for a native plugin (exec →
// code 126, load → null, metadata → {}) instead of failing to link.
//
// # The ABI, as the Rust fledge 1.7.2 defines it
//
//   - send(ptr, len): one outbound message (a JSON object). A message that
//     spans lines (pretty-printed JSON) is compacted to one line.
//   - recv(ptr, max_len) -> len: the next inbound message, without a line
//     ending: init first, then each response or cancel. A message longer
//     than max_len is delivered over successive calls. When nothing is
//     waiting and no answer is owed, recv returns 0 at once (as Rust does);
//     when the plugin sent a request that fledge has not answered yet, recv
//     waits for the answer. Once fledge has closed the stream (it is
//     stopping the plugin), recv returns -1.
//   - exit(code): ends the plugin with that exit code (0..255; any other
//     value reads as 1). Returning from _start is exit 0; WASI proc_exit
//     works too.
//   - exec(ptr, len) -> len: the request {"command","cwd","timeout"}; the
//     result {"code","stdout","stderr"} is then read with recv.
//   - store_set(ptr, len): {"key","value"}; store_get(ptr, len) -> len: the
//     key as UTF-8 bytes, the value (a JSON string, or null) read with recv.
//   - metadata(ptr, len) -> len: a JSON array of keys (or {"keys":[…]}); the
//     object read with recv.
//
// The synchronous calls return -1 when fledge withdrew the request (it was
// invalid, or the run is being cancelled); nothing is then waiting for recv.
// A result is what the next recv delivers: the rest of a message recv had
// not finished delivering is dropped, as in the Rust fledge. A pointer
// outside the plugin's memory, or an argument longer than a protocol
// message may be, ends the run with a clear error.
//
// # The sandbox
//
//   - WASI args are the command name and its arguments; no environment
//     variables; stdin is empty; what the plugin writes to stdout is shown
//     as output (it reaches fledge as output messages, so --json captures
//     it); stderr goes to fledge's stderr, cleaned of control sequences.
//   - Filesystem preopens: "project" mounts the project read-only at
//     /project; "plugin" adds the plugin's own data directory read-write at
//     /plugin (the Rust fledge's ladder: none < project < plugin). /project
//     is opened through os.Root, so a symlink in the project that points
//     outside it cannot be followed; /plugin refuses every path through a
//     symlink (the plugin cannot create one there, so any link was
//     planted). Only regular files and directories are opened, and without
//     blocking: a FIFO would otherwise hold the plugin in a host call, out
//     of reach of every limit (fs.go).
//   - No sockets: WASI preview 1 in wazero has none, so a granted network
//     capability gives the plugin's own code no network; it is recorded
//     and passed in init. A plugin that needs the network asks fledge
//     through exec.
//   - Clocks, sleep and random numbers are the host's.
//
// # Limits
//
// Memory (256 MiB by default) is enforced by the memory allocator, which
// refuses to grow past it; a plugin that then fails is reported as having
// hit the limit. Compute time (30 s by default) is what wazero's missing
// fuel stands for, measured without slowing the code down: on Linux, the
// CPU time of the OS thread the plugin runs on (its goroutine holds that
// thread for the whole run, so waits on fledge or the user, which park it,
// cost nothing); elsewhere, the time its code runs less every wait (recv,
// synchronous calls, sleeps, a full output pipe), which under heavy load
// errs towards stopping early. The wall clock of the whole run belongs to
// the runner. Every limit stops the plugin at its next
// loop iteration or call, whatever it is doing; host calls that could
// block for good are not made (the mounts open no FIFO), and a killed
// plugin still in a host call after killGrace (a write to a stderr nobody
// reads) is abandoned, so that no limit waits on it.
//
// # Compilation bounds
//
// wazero's optimising compiler is bounded by neither time nor memory, and
// its cost grows faster than the code in a few measures of a function
// (blocks, locals times blocks). Before compiling, at install and at a run
// with no record of it (below), a linear scan of the code section refuses a module past Bounds
// (bounds.go: set ten times and more above real Go, Rust, Zig and TinyGo
// modules); CompileTimeout then cuts what is left, between functions.
// Both refusals are a *ModuleError with Bound set. A run skips the scan
// when the cache record of the module's SHA-256 says it passed the scan
// under the same Bounds (the record is written only after such a compile):
// the scan reads nothing but the module's bytes and Bounds.
//
// # Compilation cache
//
// Modules are compiled by wazero's optimising compiler into a cache
// directory (home.Paths.WasmCacheDir), below a directory named for the
// wazero version (WazeroVersion) and one named for the SHA-256 of the
// module's bytes. wazero keys each entry on that hash, the compile options
// and the CPU's features, but does not record it in the entry; so fledge
// binds each module's entries with a record of their SHA-256, and deletes
// (and recompiles) any entry its module's record does not bind: one moved
// or swapped in from another module, damaged, or left by a crash
// (cache.go). The record's hash of an entry leaves out its native code,
// which wazero checks against the entry's CRC-32C at every load (the hash
// covers that CRC); an entry wazero refuses is deleted and its module
// compiled again. So every byte of an entry is checked at every run, and a
// run hashes a few KB instead of 15 MB. Binding after the compile hashes
// only the files wazero wrote since. The module's entry is also filed,
// and bound, under its stand-in's name (standin.go), through which runs
// load it; the stand-in itself is stored beside the record, and used only
// if wazero, keying on the SHA-256 of its bytes, finds that entry for it.
// What a crash mid-compile leaves (a temporary entry, a stand-in's
// scratch cache) is deleted by a later run once no live compile could
// own it (cache.go).
// Everything in FLEDGE_HOME is trusted: an entry forged together with its
// record would still run as native code.
//
// # What a warm run costs
//
// wazero decodes and validates a whole module, and allocates, validates
// and evaluates each of its data segments, before it looks in its cache:
// for a Go module (3.7 MB, 2,350 functions, 40,000 data segments, 14.7 MB
// of native code) that was 45 of a warm run's 74 ms of CPU. A run
// therefore hands wazero the module's stand-in (standin.go): its code
// trivial, its data left for the run to write from the module's bytes, it
// is 90 KB, read from beside the cache record; the module's own native
// code is filed under its name. While a plugin runs, the collector waits
// for 64 MiB of garbage (gc.go): a collection that overlapped the
// plugin's code spun until its next host call. A warm run of the Go
// module is about 33 ms of CPU, of which wazero's share is loading the
// entry (about 13 ms: its 2,350 function offsets are read 8 bytes per
// read(2), and its native code copied into fresh executable memory and
// checked against its CRC-32C) and instantiating the stand-in; only a
// change to wazero could cut the load (a cache format it maps rather than
// copies, or a reader fledge could buffer: its CompilationCache is "not
// for third-party implementations", and a runtime takes only its own,
// cache.go and runtime.go of v1.12.0), and fledge carries no fork of it.
// Of fledge's own share, the module is read with one read(2) (not mapped:
// a mapping would change under the run if the file did) and hashed once
// (2 ms: the cache is named for that hash, and the stand-in carries it);
// its data is written in one pass over its data section; DWARF is not
// parsed (WithDebugInfoEnabled(false)); the "name" section is kept
// (removing custom sections measured no gain); linear memory is a mapping
// that grows without copying (memory.go); the cache record hashes a few
// KB (cache.go). WithCloseOnContextDone costs one goroutine per call of
// _start and a check at every loop header (about 3 ms of a Go module's
// start): it is the only way wazero can stop guest code that calls no
// host function, so every limit and Ctrl+C depend on it.
//
// The first run after the cache is emptied (a new wazero, a cleared
// cache) compiles the module: 1.2 s for the Go module, on two workers.
// Install compiles ahead, so runs do not pay it. wazero's interpreter
// would start the module in about 0.2 s, but runs its code an order of
// magnitude slower (a plugin within its compute budget compiled could
// exceed it interpreted): fledge does not use it.
package wasmhost
