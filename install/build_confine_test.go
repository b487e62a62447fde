package install

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/confine"
)

// A hook, and what it starts, cannot read keys or cloud credentials,
// write the shell's start-up file or plugins.toml; it can write its own
// tree and its TMPDIR; a real Go build and a real make still succeed.
func TestHooksRunConfined(t *testing.T) {
	if s := confine.Detect(); !s.Files {
		t.Skipf("the kernel cannot confine hooks: %s", s.Reason)
	}
	in := testInstaller(t)
	root := t.TempDir()
	home := filepath.Join(root, "home")
	writeFileT(t, filepath.Join(home, ".ssh", "id_rsa"), "KEY\n")
	writeFileT(t, filepath.Join(home, ".aws", "credentials"), "[default]\n")
	writeFileT(t, filepath.Join(home, ".bashrc"), "# rc\n")
	writeFileT(t, in.Paths.PluginsFile(), "# plugins\n")
	dir := filepath.Join(root, "staging")
	writeFileT(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() { println(\"built\") }\n")
	writeFileT(t, filepath.Join(dir, "go.mod"), "module example.com/probe\n\ngo 1.21\n")
	writeFileT(t, filepath.Join(dir, "Makefile"), "all:\n\techo made > made.txt\n")
	env := append(os.Environ(), "HOME="+home, "PROBE_FH="+in.Paths.Root(), "GOTOOLCHAIN=local")
	if c, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		// The real build cache, named by its variable: a warm build.
		env = append(env, "GOCACHE="+strings.TrimSpace(string(c)))
	}

	probe := `try() { if sh -c "$2" >/dev/null 2>&1; then echo "$1 ok"; else echo "$1 denied"; fi; }
try read_ssh 'cat "$HOME/.ssh/id_rsa"'
try read_aws 'cat "$HOME/.aws/credentials"'
try write_bashrc 'echo evil >> "$HOME/.bashrc"'
try write_plugins_toml 'echo evil >> "$PROBE_FH/plugins.toml"'
try write_tree 'echo x > own.txt'
try write_tmpdir 'echo x > "$TMPDIR/x"'`
	var out bytes.Buffer
	if err := in.runHook(context.Background(), "build", probe, dir, env, &out); err != nil {
		t.Fatalf("probe hook: %v\n%s", err, out.String())
	}
	want := "read_ssh denied\nread_aws denied\nwrite_bashrc denied\nwrite_plugins_toml denied\nwrite_tree ok\nwrite_tmpdir ok\n"
	if got := strings.ReplaceAll(out.String(), "  │ ", ""); got != want {
		t.Errorf("probe hook said:\n%s\nwant:\n%s", got, want)
	}
	if rc, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(rc) != "# rc\n" {
		t.Errorf(".bashrc = %q", rc)
	}

	if _, err := exec.LookPath("go"); err == nil {
		out.Reset()
		if err := in.runHook(context.Background(), "build", "go build -o probe . && ./probe", dir, env, &out); err != nil {
			t.Fatalf("go build under confinement: %v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), "built") {
			t.Errorf("go build output: %s", out.String())
		}
	}
	if _, err := exec.LookPath("make"); err == nil {
		out.Reset()
		if err := in.runHook(context.Background(), "build", "make", dir, env, &out); err != nil {
			t.Fatalf("make under confinement: %v\n%s", err, out.String())
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "made.txt")); string(b) != "made\n" {
			t.Errorf("make wrote %q", b)
		}
	}
}

func writeFileT(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
