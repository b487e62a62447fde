//go:build unix

package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Completion in a real bash, as a user gets it: a plain bash (--norc: no
// bash-completion package, whatever the machine has installed) in a tmux
// pane sources `fledge completion bash`, then TAB completes fledge's
// commands, the installed plugin commands, plugin names and capability
// names.
func TestTTYBashCompletion(t *testing.T) {
	t.Parallel()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH; the real-terminal tests need it (CI installs tmux)")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	bin := buildFledge(t)
	e := newTTYEnv(t, tmux, bin)
	repo := e.repo("fledge-plugin-tabby", "[capabilities]\nstore = true\n", "")
	e.fledge("plugins", "install", repo, "--yes")

	p := e.start("PATH=" + filepath.Dir(bin) + ":$PATH PS1='$ ' exec " + bash + " --norc --noprofile -i")
	p.send("type _get_comp_words_by_ref _init_completion 2>&1 | grep -c 'not found'; source <(fledge completion bash); echo sour\"\"ced")
	p.send("Enter")
	p.waitFor("\n2\n", "sourced")

	for _, c := range []struct{ typed, want string }{
		{"fledge plugins remove ", "$ fledge plugins remove fledge-plugin-tabby"},
		{"fledge plugins remove ta", "$ fledge plugins remove tabby"},
		{"fledge tab", "$ fledge tabby"},
		{"fledge plugins ver", "$ fledge plugins verify"},
		{"fledge plugins run t", "$ fledge plugins run tabby"},
		{"fledge plugins install x --grant=me", "$ fledge plugins install x --grant=metadata"},
		{"fledge plugins install x --grant ne", "$ fledge plugins install x --grant network"},
		{"fledge plugins update --grant hoo", "$ fledge plugins update --grant hooks"},
		{"fledge help ta", "$ fledge help tabby"},
		{"fledge completion ba", "$ fledge completion bash"},
	} {
		p.send("C-l")
		p.tmuxCmd("send-keys", "-t", "t", "-l", c.typed)
		p.send("Tab")
		p.waitForLine(c.want, c.typed)
		p.send("C-u")
	}
	// Two TABs list the candidates with their descriptions.
	p.send("C-l")
	p.tmuxCmd("send-keys", "-t", "t", "-l", "fledge plugins install x --grant ")
	p.send("Tab")
	time.Sleep(200 * time.Millisecond)
	p.send("Tab")
	p.waitFor("exec", "store", "metadata", "network", "filesystem", "hooks", "(keep data between runs)")
}

// waitForLine waits until a line of the screen is exactly want (a
// completed command line, with or without the space after it).
func (p *pane) waitForLine(want, typed string) {
	p.e.t.Helper()
	deadline := time.Now().Add(ttyWait)
	for {
		s := p.screen()
		for _, line := range strings.Split(s, "\n") {
			if strings.TrimRight(line, " ") == want {
				return
			}
		}
		if _, err := os.Stat(p.rc); err == nil || time.Now().After(deadline) {
			p.e.t.Fatalf("TAB after %q never showed %q; the screen shows:\n%s", typed, want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
