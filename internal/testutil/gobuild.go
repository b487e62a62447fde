package testutil

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// BuildGo writes the executable of the Go main package pkg (a directory,
// relative to the test's package, or an import path) to dst; env is added
// to the go command's environment (GOOS=wasip1 GOARCH=wasm, say).
//
// go build -o links the program again on every run, warm cache or not: a
// second or more of CPU for a binary the size of fledge. go run keeps the
// executables it links in the build cache (Go 1.24 and later), so BuildGo
// asks go run for it: with -exec echo, go run prints the executable's path
// instead of running it. The first time, that path is in go run's own
// temporary directory, gone by the time go run has exited; by then the
// executable is in the cache, and a second go run names it there. The
// cached file is copied, never handed out, so no test can change it. Where
// any of this does not hold (no echo, an older go), it falls back to
// go build -o.
func BuildGo(dst, pkg string, env ...string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	environ := append(os.Environ(), env...)
	if echo, err := exec.LookPath("echo"); err == nil {
		for range 2 {
			cmd := exec.Command(goTool, "run", "-exec", echo, pkg)
			cmd.Env = environ
			out, err := cmd.Output()
			if err != nil {
				break
			}
			if p := strings.TrimSuffix(string(out), "\n"); filepath.IsAbs(p) && copyExecutable(p, dst) == nil {
				return nil
			}
		}
	}
	cmd := exec.Command(goTool, "build", "-o", dst, pkg)
	cmd.Env = environ
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, stderr.Bytes())
	}
	return nil
}

// copyExecutable copies src to dst while nothing can fork (see WriteFile):
// the copy is run by the tests, some in parallel with others starting
// processes.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
