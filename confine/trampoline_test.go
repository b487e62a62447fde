package confine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A profile too large for one argument goes through a file, which the
// trampoline removes; the plugin runs confined all the same.
func TestWrapLargeProfile(t *testing.T) {
	if s := Detect(); !s.Files {
		t.Skipf("the kernel cannot confine: %s", s.Reason)
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := Profile{Scope: ScopeNone, Network: true, ReadExec: []string{"/usr", "/bin", "/lib", "/lib64", "/etc"}}
	for len(strings.Join(p.Read, "")) < 2*maxArg {
		p.Read = append(p.Read, "/nonexistent/"+strings.Repeat("x", 200))
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command(sh, "-c", `cat "$1" && echo read || echo denied`, "sh", secret)
	if err := Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	file, ok := strings.CutPrefix(cmd.Args[1], "@")
	if !ok {
		t.Fatalf("a %d-byte profile went on argv", len(cmd.Args[1]))
	}
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "denied" {
		t.Fatalf("confined sh: %q, %v", out, err)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("the profile file was left behind")
	}
}
