package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

// A run in a git project starts one git process, and a plugin without the
// protocol, which gets no init, none: counted by a git first on PATH that
// logs each invocation, in a repository made by git itself.
func TestRunStartsOneGitProcess(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the git shim is a shell script")
	}
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "goecho", manifest.Capabilities{})
	e.installScript("fledge-plugin-sh", "shplain", "hello.sh", "", manifest.Capabilities{})
	env := append(e.environ, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "init"},
		{"remote", "add", "origin", "https://example.com/p.git"}} {
		cmd := exec.Command(real, args...)
		cmd.Dir, cmd.Env = e.project, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	shim := t.TempDir()
	log := filepath.Join(shim, "calls")
	script := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(shim, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", shim+string(os.PathListSeparator)+os.Getenv("PATH"))
	calls := func() []string {
		t.Helper()
		data, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(log)
		return strings.Split(strings.TrimSpace(string(data)), "\n")
	}

	e.mustRun(Request{Command: "goecho", Args: []string{"echo"}, NonInteractive: true})
	if got := calls(); len(got) != 1 || !strings.Contains(got[0], "status --porcelain=v2") {
		t.Errorf("a protocol run started git %d times: %q; want once, git status", len(got), got)
	}
	init := decodeEcho(t, e.stdout.String())["init"].(map[string]any)
	g, _ := init["project"].(map[string]any)["git"].(map[string]any)
	if g["branch"] != "main" || g["dirty"] != false || g["remote_url"] != "https://example.com/p.git" {
		t.Errorf("init.project.git = %v", g)
	}

	e.stdout.Reset()
	e.mustRun(Request{Command: "shplain", NonInteractive: true})
	if got := calls(); len(got) != 0 {
		t.Errorf("a plugin without the protocol started git: %q", got)
	}
}
