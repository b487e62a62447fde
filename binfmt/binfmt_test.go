package binfmt

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// elfHeader is the start of an ELF file: ident and e_type, e_machine.
func elfHeader(class elf.Class, data elf.Data, abi elf.OSABI, m elf.Machine) []byte {
	h := make([]byte, 64)
	copy(h, elf.ELFMAG)
	h[elf.EI_CLASS], h[elf.EI_DATA], h[elf.EI_VERSION], h[elf.EI_OSABI] = byte(class), byte(data), 1, byte(abi)
	var bo binary.ByteOrder = binary.LittleEndian
	if data == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	bo.PutUint16(h[16:], uint16(elf.ET_EXEC))
	bo.PutUint16(h[18:], uint16(m))
	return h
}

// machoThin is a little-endian 64-bit Mach-O header.
func machoThin(c macho.Cpu) []byte {
	h := make([]byte, 32)
	binary.LittleEndian.PutUint32(h, macho.Magic64)
	binary.LittleEndian.PutUint32(h[4:], uint32(c))
	return h
}

// machoFat is a universal binary's header with a slice per cpu.
func machoFat(cs ...macho.Cpu) []byte {
	h := make([]byte, 8+20*len(cs))
	binary.BigEndian.PutUint32(h, macho.MagicFat)
	binary.BigEndian.PutUint32(h[4:], uint32(len(cs)))
	for i, c := range cs {
		binary.BigEndian.PutUint32(h[8+20*i:], uint32(c))
	}
	return h
}

// peFile is a DOS stub pointing at a PE header for machine.
func peFile(machine uint16) []byte {
	h := make([]byte, 0x80+6)
	copy(h, "MZ")
	binary.LittleEndian.PutUint32(h[0x3c:], 0x80)
	copy(h[0x80:], "PE\x00\x00")
	binary.LittleEndian.PutUint16(h[0x84:], machine)
	return h
}

func TestRead(t *testing.T) {
	t.Parallel()
	java := []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x34, 1, 2, 3}
	tests := []struct {
		name string
		data []byte
		want *Platform
	}{
		{"linux amd64", elfHeader(elf.ELFCLASS64, elf.ELFDATA2LSB, elf.ELFOSABI_NONE, elf.EM_X86_64), &Platform{ELF, "", []string{"amd64"}}},
		{"linux arm64 (GNU ABI)", elfHeader(elf.ELFCLASS64, elf.ELFDATA2LSB, elf.ELFOSABI_LINUX, elf.EM_AARCH64), &Platform{ELF, "linux", []string{"arm64"}}},
		{"freebsd amd64", elfHeader(elf.ELFCLASS64, elf.ELFDATA2LSB, elf.ELFOSABI_FREEBSD, elf.EM_X86_64), &Platform{ELF, "freebsd", []string{"amd64"}}},
		{"ppc64 big-endian", elfHeader(elf.ELFCLASS64, elf.ELFDATA2MSB, elf.ELFOSABI_NONE, elf.EM_PPC64), &Platform{ELF, "", []string{"ppc64"}}},
		{"mipsle", elfHeader(elf.ELFCLASS32, elf.ELFDATA2LSB, elf.ELFOSABI_NONE, elf.EM_MIPS), &Platform{ELF, "", []string{"mipsle"}}},
		{"unknown machine", elfHeader(elf.ELFCLASS64, elf.ELFDATA2LSB, elf.ELFOSABI_NONE, elf.EM_VAX), &Platform{ELF, "", []string{""}}},
		{"macOS arm64", machoThin(macho.CpuArm64), &Platform{MachO, "darwin", []string{"arm64"}}},
		{"macOS universal", machoFat(macho.CpuAmd64, macho.CpuArm64), &Platform{MachO, "darwin", []string{"amd64", "arm64"}}},
		{"windows amd64", peFile(pe.IMAGE_FILE_MACHINE_AMD64), &Platform{PE, "windows", []string{"amd64"}}},
		{"windows arm64", peFile(pe.IMAGE_FILE_MACHINE_ARM64), &Platform{PE, "windows", []string{"arm64"}}},
		{"a Java class file shares the fat magic", java, nil},
		{"a script", []byte("#!/bin/sh\necho hi\n"), nil},
		{"a wasm module", []byte("\x00asm\x01\x00\x00\x00"), nil},
		{"a DOS program", append([]byte("MZ"), make([]byte, 0x40)...), nil},
		{"a truncated ELF", []byte(elf.ELFMAG + "\x02\x01"), nil},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		got, err := Read(bytes.NewReader(tt.data))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Read = %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}

func TestRunsOn(t *testing.T) {
	t.Parallel()
	linuxAMD64 := &Platform{ELF, "", []string{"amd64"}}
	linuxARM64 := &Platform{ELF, "linux", []string{"arm64"}}
	mac := &Platform{MachO, "darwin", []string{"arm64"}}
	universal := &Platform{MachO, "darwin", []string{"amd64", "arm64"}}
	win := &Platform{PE, "windows", []string{"amd64"}}
	tests := []struct {
		p            *Platform
		goos, goarch string
		want         bool
	}{
		{linuxAMD64, "linux", "amd64", true},
		{linuxAMD64, "freebsd", "amd64", true}, // the System V ABI says no OS
		{linuxAMD64, "linux", "arm64", false},
		{linuxAMD64, "darwin", "amd64", false},
		{linuxARM64, "linux", "arm64", true},
		{linuxARM64, "freebsd", "arm64", false},
		{linuxARM64, "linux", "amd64", false},
		{&Platform{ELF, "", []string{"386"}}, "linux", "amd64", true},
		{&Platform{ELF, "", []string{"arm"}}, "linux", "arm64", true},
		{&Platform{ELF, "", []string{""}}, "linux", "amd64", true}, // no verdict
		{mac, "darwin", "arm64", true},
		{mac, "darwin", "amd64", false},
		{mac, "linux", "arm64", false},
		{&Platform{MachO, "darwin", []string{"amd64"}}, "darwin", "arm64", true}, // Rosetta
		{universal, "darwin", "amd64", true},
		{universal, "linux", "amd64", false},
		{win, "windows", "amd64", true},
		{win, "windows", "arm64", true},
		{win, "linux", "amd64", false},
	}
	for _, tt := range tests {
		if got := tt.p.RunsOn(tt.goos, tt.goarch); got != tt.want {
			t.Errorf("%s on %s/%s: %v, want %v", tt.p, tt.goos, tt.goarch, got, tt.want)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	todo := filepath.Join(dir, "fledge-todo")
	if err := os.WriteFile(todo, machoThin(macho.CpuArm64), 0o755); err != nil {
		t.Fatal(err)
	}
	err := check(todo, "bin/fledge-todo", "linux", "amd64")
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("check = %v, want a *MismatchError", err)
	}
	if want := "bin/fledge-todo is a macOS arm64 executable; this machine is linux/amd64"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if err := check(todo, "x", "darwin", "arm64"); err != nil {
		t.Errorf("on macOS arm64: %v", err)
	}
	elfARM := filepath.Join(dir, "arm")
	if err := os.WriteFile(elfARM, elfHeader(elf.ELFCLASS64, elf.ELFDATA2LSB, elf.ELFOSABI_NONE, elf.EM_AARCH64), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := check(elfARM, "bin/todo", "linux", "amd64"); err == nil || err.Error() != "bin/todo is a Linux arm64 executable; this machine is linux/amd64" {
		t.Errorf("ELF arm64 on linux/amd64: %v", err)
	}
	// What this machine built runs here; what cannot be read is not ours.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(self, "self"); err != nil {
		t.Errorf("the test binary itself: %v", err)
	}
	if err := Check(filepath.Join(dir, "missing"), "missing"); err != nil {
		t.Errorf("a missing file: %v", err)
	}
	if runtime.GOOS != "windows" {
		if err := Check(dir, "a directory"); err != nil {
			t.Errorf("a directory: %v", err)
		}
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	for p, want := range map[*Platform]string{
		{MachO, "darwin", []string{"amd64", "arm64"}}: "a macOS executable for amd64, arm64",
		{PE, "windows", []string{""}}:                 "a Windows unknown-architecture executable",
		{ELF, "freebsd", []string{"amd64"}}:           "a FreeBSD amd64 executable",
	} {
		if got := p.String(); got != want {
			t.Errorf("%+v: %q, want %q", p, got, want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add(elfHeader(elf.ELFCLASS64, elf.ELFDATA2LSB, elf.ELFOSABI_NONE, elf.EM_X86_64))
	f.Add(machoThin(macho.CpuArm64))
	f.Add(machoFat(macho.CpuAmd64, macho.CpuArm64))
	f.Add(peFile(pe.IMAGE_FILE_MACHINE_AMD64))
	f.Add([]byte("#!/bin/sh\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Read of bytes in memory failed: %v", err)
		}
		if p != nil {
			_ = p.String()
			_ = p.RunsOn("linux", "amd64")
		}
	})
}

// TestNamesAreTheStandardLibrarys: every header field and value binfmt
// reads is the one debug/elf, debug/macho and debug/pe name, which binfmt
// does not link (its doc.go says why).
func TestNamesAreTheStandardLibrarys(t *testing.T) {
	t.Parallel()
	if elfMagic != elf.ELFMAG {
		t.Errorf("elfMagic = %q, want %q", elfMagic, elf.ELFMAG)
	}
	for _, c := range []struct {
		name      string
		ours, std uint64
	}{
		{"EI_CLASS", eiClass, elf.EI_CLASS}, {"EI_DATA", eiData, elf.EI_DATA}, {"EI_OSABI", eiOSABI, elf.EI_OSABI},
		{"ELFCLASS64", elfClass64, uint64(elf.ELFCLASS64)}, {"ELFDATA2MSB", elfData2MSB, uint64(elf.ELFDATA2MSB)},
		{"EM_386", em386, uint64(elf.EM_386)}, {"EM_MIPS", emMIPS, uint64(elf.EM_MIPS)},
		{"EM_PPC64", emPPC64, uint64(elf.EM_PPC64)}, {"EM_S390", emS390, uint64(elf.EM_S390)},
		{"EM_ARM", emARM, uint64(elf.EM_ARM)}, {"EM_X86_64", emX86_64, uint64(elf.EM_X86_64)},
		{"EM_AARCH64", emAArch64, uint64(elf.EM_AARCH64)}, {"EM_RISCV", emRISCV, uint64(elf.EM_RISCV)},
		{"EM_LOONGARCH", emLoongArch, uint64(elf.EM_LOONGARCH)},
		{"ELFOSABI_NETBSD", osabiNetBSD, uint64(elf.ELFOSABI_NETBSD)}, {"ELFOSABI_LINUX", osabiLinux, uint64(elf.ELFOSABI_LINUX)},
		{"ELFOSABI_SOLARIS", osabiSolaris, uint64(elf.ELFOSABI_SOLARIS)}, {"ELFOSABI_FREEBSD", osabiFreeBSD, uint64(elf.ELFOSABI_FREEBSD)},
		{"ELFOSABI_OPENBSD", osabiOpenBSD, uint64(elf.ELFOSABI_OPENBSD)},
		{"macho.Magic32", machoMagic32, uint64(macho.Magic32)}, {"macho.Magic64", machoMagic64, uint64(macho.Magic64)},
		{"macho.MagicFat", machoMagicFat, uint64(macho.MagicFat)},
		{"macho.Cpu386", cpu386, uint64(macho.Cpu386)}, {"macho.CpuArm", cpuARM, uint64(macho.CpuArm)},
		{"macho.CpuPpc", cpuPPC, uint64(macho.CpuPpc)}, {"macho.CpuAmd64", cpuAMD64, uint64(macho.CpuAmd64)},
		{"macho.CpuArm64", cpuARM64, uint64(macho.CpuArm64)}, {"macho.CpuPpc64", cpuPPC64, uint64(macho.CpuPpc64)},
		{"IMAGE_FILE_MACHINE_I386", pe386, uint64(pe.IMAGE_FILE_MACHINE_I386)}, {"IMAGE_FILE_MACHINE_ARM", peARM, uint64(pe.IMAGE_FILE_MACHINE_ARM)},
		{"IMAGE_FILE_MACHINE_ARMNT", peARMNT, uint64(pe.IMAGE_FILE_MACHINE_ARMNT)}, {"IMAGE_FILE_MACHINE_AMD64", peAMD64, uint64(pe.IMAGE_FILE_MACHINE_AMD64)},
		{"IMAGE_FILE_MACHINE_ARM64", peARM64, uint64(pe.IMAGE_FILE_MACHINE_ARM64)},
	} {
		if c.ours != c.std {
			t.Errorf("binfmt's %s is %#x, the standard library's %#x", c.name, c.ours, c.std)
		}
	}
}
