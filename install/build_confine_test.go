package install

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/confine"
)

// A hook, and what it starts, cannot read keys or cloud credentials,
// write the shell's start-up file or plugins.toml; it can write its own
// tree and its TMPDIR; it gets the base environment and what the plugin
// is granted, never the user's tokens; a real Go build and a real make
// still succeed with that environment.
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
	const secret = "ghp_0123456789abcdefghij0123456789abcdef"
	in.Env = append(os.Environ(), "HOME="+home, "PROBE_FH="+in.Paths.Root(), "GOTOOLCHAIN=local",
		"GITHUB_TOKEN="+secret, "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	if c, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		// The real build cache, named by its variable: a warm build.
		in.Env = append(in.Env, "GOCACHE="+strings.TrimSpace(string(c)))
	}
	var log bytes.Buffer
	in.Log = &log
	// PROBE_FH is granted; GITHUB_TOKEN is declared, not granted.
	env := in.hookEnv("fledge-plugin-p", "env", dir, []string{"PROBE_FH"}, []string{"GITHUB_TOKEN", "PROBE_FH"})
	if want := "  note: the hooks of fledge-plugin-p are not given GITHUB_TOKEN (it declares them, they are not granted): fledge plugins grant fledge-plugin-p env:GITHUB_TOKEN\n"; log.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), want)
	}
	if strings.Contains(log.String(), secret) {
		t.Error("the note holds the value")
	}
	var envOut bytes.Buffer
	if err := in.runHook(context.Background(), "build", "env", dir, env, &envOut); err != nil {
		t.Fatalf("env hook: %v\n%s", err, envOut.String())
	}
	for _, absent := range []string{"GITHUB_TOKEN=", "AWS_SECRET_ACCESS_KEY=", secret} {
		if strings.Contains(envOut.String(), absent) {
			t.Errorf("the hook's environment holds %q:\n%s", absent, envOut.String())
		}
	}
	for _, present := range []string{"PROBE_FH=" + in.Paths.Root(), "FLEDGE_PLUGIN_DIR=" + dir, "HOME=" + home, "PATH="} {
		if !strings.Contains(envOut.String(), present) {
			t.Errorf("the hook's environment lacks %q:\n%s", present, envOut.String())
		}
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

// A live-linked plugin inside a repository builds against the module above
// it, as the README's example does (go reads go.mod in the work tree's
// top); a hook refused by the kernel says it ran confined, so the hint can
// say so.
func TestConfinedBuildReadsItsWorkTree(t *testing.T) {
	if s := confine.Detect(); !s.Files {
		t.Skipf("the kernel cannot confine hooks: %s", s.Reason)
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	in := testInstaller(t)
	root := t.TempDir()
	home := filepath.Join(root, "home")
	writeFileT(t, filepath.Join(home, ".ssh", "id_rsa"), "KEY\n")
	// A checkout in home, which is hidden but for what a profile grants.
	repo := filepath.Join(home, "src", "repo")
	writeFileT(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFileT(t, filepath.Join(repo, "go.mod"), "module example.com/mono\n\ngo 1.21\n")
	dir := filepath.Join(repo, "plugins", "fledge-plugin-p")
	writeFileT(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() { println(\"built in a module\") }\n")
	env := append(os.Environ(), "HOME="+home, "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false")
	if c, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		env = append(env, "GOCACHE="+strings.TrimSpace(string(c)))
	}
	var out bytes.Buffer
	if err := in.runHook(context.Background(), "build", "go build -o bin/p . && ./bin/p", dir, env, &out); err != nil {
		t.Fatalf("a build inside its module: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "built in a module") {
		t.Errorf("build output: %s", out.String())
	}
	out.Reset()
	err := in.runHook(context.Background(), "build", `cat "$HOME/.ssh/id_rsa"`, dir, env, &out)
	var he *HookError
	if !errors.As(err, &he) || !he.Confined || !strings.Contains(strings.ToLower(he.Tail), "permission denied") {
		t.Errorf("a hook reading a key: %#v, want a confined HookError whose output says permission denied", err)
	}
}
