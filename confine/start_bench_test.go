//go:build linux

package confine

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// benchPlaces is a run's Places in this process's real environment: the
// home directory, PATH and the toolchains it names, as the runner fills
// them for an undeclared plugin.
func benchPlaces(b *testing.B) Places {
	home, _ := os.UserHomeDir()
	dir := b.TempDir()
	at := Places{Home: home, FledgeHome: filepath.Join(home, ".config", "fledge"), PluginRoot: dir, Data: dir, Temp: dir,
		Path: filepath.SplitList(os.Getenv("PATH"))}
	if wd, err := os.Getwd(); err == nil {
		at.Project = []string{wd}
	}
	for _, v := range ToolEnv {
		if d := os.Getenv(v); filepath.IsAbs(d) {
			at.Tools = append(at.Tools, d)
		}
	}
	return at
}

// Drawing a plugin's profile (Derive), the part of a confined run's cost
// that grows with PATH and the home directory's toolchains.
func BenchmarkDerive(b *testing.B) {
	at := benchPlaces(b)
	for b.Loop() {
		Derive("", Grants{}, at)
	}
}

// Making the profile a Landlock ruleset (compile).
func BenchmarkCompile(b *testing.B) {
	p := Derive("", Grants{}, benchPlaces(b))
	for b.Loop() {
		r, err := compile(p)
		if err != nil {
			b.Fatal(err)
		}
		r.close()
	}
}

// Starting and waiting for /bin/true confined (Start: a thread restricted
// alone), against the same started plainly.
func BenchmarkStartConfined(b *testing.B) { benchStart(b, true) }
func BenchmarkStartPlain(b *testing.B)    { benchStart(b, false) }

func benchStart(b *testing.B, confined bool) {
	if s := Detect(); !s.Files {
		b.Skipf("the kernel cannot confine: %s", s.Reason)
	}
	p := Derive("", Grants{}, benchPlaces(b))
	var pp *Profile
	if confined {
		pp = &p
	}
	for b.Loop() {
		cmd := exec.Command("/bin/true")
		if err := Start(cmd, pp); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}
