package binfmt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// Format names.
const (
	ELF   = "ELF"
	MachO = "Mach-O"
	PE    = "PE"
)

// Platform is what an executable's header says it runs on.
type Platform struct {
	Format string
	// OS is a GOOS name, or "" when the header does not say (an ELF file
	// with the System V OS ABI, as most Linux binaries are).
	OS string
	// Archs are GOARCH names, one per slice of a universal Mach-O binary;
	// "" for a machine this package has no name for.
	Archs []string
}

// The header fields and values read, as debug/elf, debug/macho and
// debug/pe name them (TestNamesAreTheStandardLibrarys holds them to those
// packages). Those packages are not imported: their package
// initialisation (the DWARF, zlib and zstd decoders they link) cost every
// start of fledge, which checks a plugin's binary before each run.
const (
	elfMagic                       = "\x7fELF"
	eiClass, eiData, eiOSABI       = 4, 5, 7
	elfClass64, elfData2MSB        = 2, 2
	em386, emMIPS, emPPC64, emS390 = 3, 8, 21, 22
	emARM, emX86_64, emAArch64     = 40, 62, 183
	emRISCV, emLoongArch           = 243, 258
	osabiNetBSD, osabiLinux        = 2, 3
	osabiSolaris, osabiFreeBSD     = 6, 9
	osabiOpenBSD                   = 12
	machoMagic32, machoMagic64     = 0xfeedface, 0xfeedfacf
	machoMagicFat                  = 0xcafebabe
	cpu386, cpuARM, cpuPPC         = 7, 12, 18
	cpuAMD64, cpuARM64, cpuPPC64   = 0x01000007, 0x0100000c, 0x01000012
	pe386, peARM, peARMNT          = 0x14c, 0x1c0, 0x1c4
	peAMD64, peARM64               = 0x8664, 0xaa64
)

// headerSize bounds what Read reads at the start of a file; a PE header is
// read at its offset, bounded by maxPEOffset.
const (
	headerSize  = 8 + 32*maxFatArchs
	maxFatArchs = 20 // more is a Java class file, which shares the magic
	maxPEOffset = 1 << 16
)

// Read returns the platform f's header names, or nil when it is not an
// executable format this package knows (a script, a wasm module, data).
func Read(f io.ReaderAt) (*Platform, error) {
	head := make([]byte, headerSize)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte(elfMagic)):
		return readELF(head), nil
	case len(head) >= 8 && isMachO(head):
		return readMachO(head), nil
	case bytes.HasPrefix(head, []byte("MZ")):
		return readPE(f, head)
	}
	return nil, nil
}

func readELF(h []byte) *Platform {
	if len(h) < 20 {
		return nil
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if h[eiData] == elfData2MSB {
		bo = binary.BigEndian
	}
	is64 := h[eiClass] == elfClass64
	le := bo == binary.LittleEndian
	m := bo.Uint16(h[18:20])
	arch := ""
	switch m {
	case emX86_64:
		arch = "amd64"
	case em386:
		arch = "386"
	case emAArch64:
		arch = "arm64"
	case emARM:
		arch = "arm"
	case emRISCV:
		if is64 {
			arch = "riscv64"
		}
	case emPPC64:
		arch = pick(le, "ppc64le", "ppc64")
	case emS390:
		if is64 {
			arch = "s390x"
		}
	case emLoongArch:
		arch = "loong64"
	case emMIPS:
		if is64 {
			arch = pick(le, "mips64le", "mips64")
		} else {
			arch = pick(le, "mipsle", "mips")
		}
	}
	goos := ""
	switch h[eiOSABI] {
	case osabiLinux:
		goos = "linux"
	case osabiFreeBSD:
		goos = "freebsd"
	case osabiNetBSD:
		goos = "netbsd"
	case osabiOpenBSD:
		goos = "openbsd"
	case osabiSolaris:
		goos = "solaris"
	}
	return &Platform{Format: ELF, OS: goos, Archs: []string{arch}}
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

func isMachO(h []byte) bool {
	switch binary.LittleEndian.Uint32(h) {
	case machoMagic32, machoMagic64:
		return true
	}
	switch binary.BigEndian.Uint32(h) {
	case machoMagic32, machoMagic64:
		return true
	case machoMagicFat, machoMagicFat + 1: // fat, fat64
		n := binary.BigEndian.Uint32(h[4:])
		return n >= 1 && n <= maxFatArchs
	}
	return false
}

func readMachO(h []byte) *Platform {
	p := &Platform{Format: MachO, OS: "darwin"}
	switch magic := binary.BigEndian.Uint32(h); magic {
	case machoMagicFat, machoMagicFat + 1:
		size := 20
		if magic == machoMagicFat+1 {
			size = 32
		}
		n := int(binary.BigEndian.Uint32(h[4:]))
		for i := 0; i < n && 8+(i+1)*size <= len(h); i++ {
			p.Archs = append(p.Archs, machoArch(binary.BigEndian.Uint32(h[8+i*size:])))
		}
	case machoMagic32, machoMagic64:
		p.Archs = []string{machoArch(binary.BigEndian.Uint32(h[4:]))}
	default:
		p.Archs = []string{machoArch(binary.LittleEndian.Uint32(h[4:]))}
	}
	if len(p.Archs) == 0 {
		p.Archs = []string{""}
	}
	return p
}

func machoArch(c uint32) string {
	switch c {
	case cpuAMD64:
		return "amd64"
	case cpuARM64:
		return "arm64"
	case cpu386:
		return "386"
	case cpuARM:
		return "arm"
	case cpuPPC:
		return "ppc"
	case cpuPPC64:
		return "ppc64"
	}
	return ""
}

func readPE(f io.ReaderAt, h []byte) (*Platform, error) {
	if len(h) < 0x40 {
		return nil, nil
	}
	off := int64(binary.LittleEndian.Uint32(h[0x3c:]))
	if off <= 0 || off > maxPEOffset {
		return nil, nil // a DOS program, or not a PE at all
	}
	var sig [6]byte
	if n, err := f.ReadAt(sig[:], off); n < len(sig) {
		if err == io.EOF || err == nil {
			return nil, nil
		}
		return nil, err
	}
	if string(sig[:4]) != "PE\x00\x00" {
		return nil, nil
	}
	arch := ""
	switch binary.LittleEndian.Uint16(sig[4:]) {
	case peAMD64:
		arch = "amd64"
	case pe386:
		arch = "386"
	case peARM64:
		arch = "arm64"
	case peARMNT, peARM:
		arch = "arm"
	}
	return &Platform{Format: PE, OS: "windows", Archs: []string{arch}}, nil
}

// notELF are the GOOS values whose executables are not ELF.
var notELF = map[string]bool{"darwin": true, "ios": true, "windows": true, "plan9": true, "js": true, "wasip1": true, "aix": true}

// RunsOn reports whether goos/goarch can run the executable, as far as its
// header says: an OS or machine the header does not name passes.
func (p *Platform) RunsOn(goos, goarch string) bool {
	switch p.Format {
	case ELF:
		if notELF[goos] {
			return false
		}
		if p.OS != "" && p.OS != goos && !(p.OS == "linux" && goos == "android") && !(p.OS == "solaris" && goos == "illumos") {
			return false
		}
	case MachO:
		if goos != "darwin" && goos != "ios" {
			return false
		}
	case PE:
		if goos != "windows" {
			return false
		}
	}
	for _, a := range p.Archs {
		if a == "" || a == goarch || emulates(goos, goarch, a) {
			return true
		}
	}
	return false
}

// emulates reports whether goos/goarch runs arch's binaries as a matter of
// course.
func emulates(goos, goarch, arch string) bool {
	switch {
	case goarch == "amd64" && arch == "386":
		return goos != "darwin" // macOS dropped 32-bit programs
	case goarch == "arm64" && arch == "amd64":
		return goos == "darwin" || goos == "windows" // Rosetta, Windows on Arm
	case goarch == "arm64" && arch == "arm":
		return goos == "linux" || goos == "android"
	}
	return false
}

var osNames = map[string]string{
	"linux": "Linux", "darwin": "macOS", "windows": "Windows", "freebsd": "FreeBSD",
	"netbsd": "NetBSD", "openbsd": "OpenBSD", "solaris": "Solaris",
}

// String describes p as "a macOS arm64 executable".
func (p *Platform) String() string {
	system := osNames[p.OS]
	if p.OS == "" {
		system = "Linux" // System V ABI: what Linux toolchains write
	}
	var archs []string
	for _, a := range p.Archs {
		if a == "" {
			a = "unknown-architecture"
		}
		archs = append(archs, a)
	}
	if len(archs) == 1 {
		return fmt.Sprintf("a %s %s executable", system, archs[0])
	}
	return fmt.Sprintf("a %s executable for %s", system, strings.Join(archs, ", "))
}

// MismatchError reports a binary this machine cannot run.
type MismatchError struct {
	// Binary is the binary as the manifest names it (e.g. bin/fledge-todo).
	Binary string
	File   *Platform
	// GOOS and GOARCH are this machine's.
	GOOS, GOARCH string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s is %s; this machine is %s/%s", e.Binary, e.File, e.GOOS, e.GOARCH)
}

// Check returns a *MismatchError when the executable at path is certainly
// built for another platform than this one. name is how errors call it. A
// file that cannot be opened or read is not this package's to report: the
// caller's own checks (or running it) do.
func Check(path, name string) error {
	return check(path, name, runtime.GOOS, runtime.GOARCH)
}

func check(path, name, goos, goarch string) error {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil // a FIFO would block the open
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	_, err = checkFile(f, name, goos, goarch)
	return err
}

// CheckFile is Check of an executable the caller has open, which also
// returns the platform its header names: nil when it is not an executable
// format this package knows (a script, a wasm module, data), or cannot be
// read.
func CheckFile(f io.ReaderAt, name string) (*Platform, error) {
	return checkFile(f, name, runtime.GOOS, runtime.GOARCH)
}

func checkFile(f io.ReaderAt, name, goos, goarch string) (*Platform, error) {
	p, err := Read(f)
	if err != nil || p == nil {
		return nil, nil
	}
	if !p.RunsOn(goos, goarch) {
		return p, &MismatchError{Binary: name, File: p, GOOS: goos, GOARCH: goarch}
	}
	return p, nil
}
