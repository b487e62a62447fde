// Package binfmt tells, from an executable's header, which operating
// system and architecture it is built for, so that fledge can refuse a
// command binary this machine cannot run with an error that names both
// platforms, rather than the kernel's "exec format error".
//
// It reads ELF (e_machine, EI_CLASS, EI_DATA, EI_OSABI), Mach-O (cputype,
// including every slice of a universal binary) and PE (the COFF machine),
// never more than a few hundred bytes of a file. It names the fields and
// values as debug/elf, debug/macho and debug/pe do, and a test holds them
// to those packages, which it does not import: the split fledge checks a
// plugin's binary before each run, and their package initialisation (the
// DWARF, zlib and zstd decoders they bring) cost each of its starts
// 0.034 ms and 11 allocations (GODEBUG=inittrace=1, 200 runs). What it does not recognise —
// a script starting with #!, a wasm module, a machine or OS ABI it has no
// name for — passes: only a header that certainly names another platform
// is refused. Where a machine runs another architecture's binaries as a
// matter of course (386 on amd64, amd64 on Apple silicon through Rosetta
// and on Windows on Arm, 32-bit arm on arm64 Linux), they pass too.
//
// It does not own what happens next: install and the runner call Check and
// report its error; the advice to build from source is the command layer's.
package binfmt
