package binfmt

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"debug/pe"
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
	case bytes.HasPrefix(head, []byte(elf.ELFMAG)):
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
	if elf.Data(h[elf.EI_DATA]) == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	is64 := elf.Class(h[elf.EI_CLASS]) == elf.ELFCLASS64
	le := bo == binary.LittleEndian
	m := elf.Machine(bo.Uint16(h[18:20]))
	arch := ""
	switch m {
	case elf.EM_X86_64:
		arch = "amd64"
	case elf.EM_386:
		arch = "386"
	case elf.EM_AARCH64:
		arch = "arm64"
	case elf.EM_ARM:
		arch = "arm"
	case elf.EM_RISCV:
		if is64 {
			arch = "riscv64"
		}
	case elf.EM_PPC64:
		arch = pick(le, "ppc64le", "ppc64")
	case elf.EM_S390:
		if is64 {
			arch = "s390x"
		}
	case elf.EM_LOONGARCH:
		arch = "loong64"
	case elf.EM_MIPS:
		if is64 {
			arch = pick(le, "mips64le", "mips64")
		} else {
			arch = pick(le, "mipsle", "mips")
		}
	}
	goos := ""
	switch elf.OSABI(h[elf.EI_OSABI]) {
	case elf.ELFOSABI_LINUX:
		goos = "linux"
	case elf.ELFOSABI_FREEBSD:
		goos = "freebsd"
	case elf.ELFOSABI_NETBSD:
		goos = "netbsd"
	case elf.ELFOSABI_OPENBSD:
		goos = "openbsd"
	case elf.ELFOSABI_SOLARIS:
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
	case macho.Magic32, macho.Magic64:
		return true
	}
	switch binary.BigEndian.Uint32(h) {
	case macho.Magic32, macho.Magic64:
		return true
	case macho.MagicFat, macho.MagicFat + 1: // fat, fat64
		n := binary.BigEndian.Uint32(h[4:])
		return n >= 1 && n <= maxFatArchs
	}
	return false
}

func readMachO(h []byte) *Platform {
	p := &Platform{Format: MachO, OS: "darwin"}
	switch magic := binary.BigEndian.Uint32(h); magic {
	case macho.MagicFat, macho.MagicFat + 1:
		size := 20
		if magic == macho.MagicFat+1 {
			size = 32
		}
		n := int(binary.BigEndian.Uint32(h[4:]))
		for i := 0; i < n && 8+(i+1)*size <= len(h); i++ {
			p.Archs = append(p.Archs, machoArch(macho.Cpu(binary.BigEndian.Uint32(h[8+i*size:]))))
		}
	case macho.Magic32, macho.Magic64:
		p.Archs = []string{machoArch(macho.Cpu(binary.BigEndian.Uint32(h[4:])))}
	default:
		p.Archs = []string{machoArch(macho.Cpu(binary.LittleEndian.Uint32(h[4:])))}
	}
	if len(p.Archs) == 0 {
		p.Archs = []string{""}
	}
	return p
}

func machoArch(c macho.Cpu) string {
	switch c {
	case macho.CpuAmd64:
		return "amd64"
	case macho.CpuArm64:
		return "arm64"
	case macho.Cpu386:
		return "386"
	case macho.CpuArm:
		return "arm"
	case macho.CpuPpc:
		return "ppc"
	case macho.CpuPpc64:
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
	case pe.IMAGE_FILE_MACHINE_AMD64:
		arch = "amd64"
	case pe.IMAGE_FILE_MACHINE_I386:
		arch = "386"
	case pe.IMAGE_FILE_MACHINE_ARM64:
		arch = "arm64"
	case pe.IMAGE_FILE_MACHINE_ARMNT, pe.IMAGE_FILE_MACHINE_ARM:
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
