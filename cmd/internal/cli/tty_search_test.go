//go:build unix

package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// search --interactive in a real terminal (a tmux pane): the results are
// listed in a picker, and the one chosen with the keys is what installs.
func TestTTYSearchInteractive(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH; the real-terminal tests need it (CI installs tmux)")
	}
	t.Parallel()
	bin := buildFledge(t)
	e := newTTYEnv(t, tmux, bin)
	a := e.repo("fledge-plugin-alpha", "", "")
	b := e.repo("fledge-plugin-beta", "", "")
	index := filepath.Join(e.dir, "index.json")
	doc := fmt.Sprintf(`[{"name":"fledge-plugin-alpha","repo":"file://%s","stars":5,"description":"first"},
	                     {"name":"fledge-plugin-beta","repo":"file://%s","stars":1,"description":"second"}]`, a, b)
	if err := os.WriteFile(index, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	p := e.start(fmt.Sprintf("FLEDGE_REGISTRY_URL=file://%s %s plugins search --interactive", index, sq(bin)))
	// Each row leads with the plugin's name, which a long source (the temp
	// path) cannot push off the screen.
	p.waitFor("Select a plugin to install", "fledge-plugin-alpha  ", "fledge-plugin-beta   ", "first", "second")
	p.send("Down")
	p.send("Enter")
	if rc := p.exitCode(); rc != 0 {
		t.Fatalf("search --interactive exited %d; screen:\n%s", rc, p.screen())
	}
	out := string(e.fledge("plugins", "list", "--json"))
	if !strings.Contains(out, `"fledge-plugin-beta"`) || strings.Contains(out, `"fledge-plugin-alpha"`) {
		t.Errorf("want only the picked plugin (beta) installed; list --json:\n%s", out)
	}
}

// Esc and Ctrl+C abandon the picker: nothing installs and fledge exits
// 130, as at every other question.
func TestTTYSearchInteractiveCancel(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH; the real-terminal tests need it (CI installs tmux)")
	}
	t.Parallel()
	bin := buildFledge(t)
	for _, k := range []string{"Escape", "C-c"} {
		t.Run(k, func(t *testing.T) {
			t.Parallel()
			e := newTTYEnv(t, tmux, bin)
			a := e.repo("fledge-plugin-alpha", "", "")
			index := filepath.Join(e.dir, "index.json")
			doc := fmt.Sprintf(`[{"name":"fledge-plugin-alpha","repo":"file://%s","stars":5,"description":"first"}]`, a)
			if err := os.WriteFile(index, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			p := e.start(fmt.Sprintf("FLEDGE_REGISTRY_URL=file://%s %s plugins search --interactive", index, sq(bin)))
			p.waitFor("Select a plugin to install", "Esc cancels")
			p.send(k)
			if rc := p.exitCode(); rc != 130 {
				t.Fatalf("%s at the picker: exit %d, want 130; screen:\n%s", k, rc, p.screen())
			}
			p.waitFor("Cancelled.")
			e.wantNothingInstalled("fledge-plugin-alpha")
		})
	}
}

// search's table fits the terminal at 120, 80 and 60 columns: every row
// on one line, cut with "…" rather than wrapped, and an emoji sequence in
// a description drawn as the emoji, not as \u200d.
func TestTTYSearchTableFitsTheWidth(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH; the real-terminal tests need it (CI installs tmux)")
	}
	t.Parallel()
	bin := buildFledge(t)
	for _, cols := range []int{120, 80, 60} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			t.Parallel()
			e := newTTYEnv(t, tmux, bin)
			e.cols, e.rows = cols, 12
			index := filepath.Join(e.dir, "index.json")
			long := strings.Repeat("a very long description that goes on ", 5)
			doc := `[{"name":"fledge-plugin-alpha","repo":"https://github.com/someone/fledge-plugin-alpha","stars":5,"description":"👩‍💻 for developers: ` + long + `"},
			         {"name":"fledge-plugin-beta-with-a-long-name","repo":"https://github.com/an-organisation/fledge-plugin-beta-with-a-long-name","stars":1,"description":"` + long + `"}]`
			if err := os.WriteFile(index, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			p := e.start(fmt.Sprintf("NO_COLOR=1 FLEDGE_REGISTRY_URL=file://%s %s plugins search 2>/dev/null", index, sq(bin)))
			if rc := p.exitCode(); rc != 0 {
				t.Fatalf("search exited %d; screen:\n%s", rc, p.screen())
			}
			var rows []string
			for _, l := range strings.Split(p.screen(), "\n") {
				if strings.TrimSpace(l) != "" {
					rows = append(rows, l)
				}
			}
			// The header and one line per plugin, each starting with its
			// name: nothing wrapped onto a line of its own.
			if len(rows) != 3 || !strings.HasPrefix(rows[0], "NAME") || !strings.HasPrefix(rows[1], "fledge-plug") || !strings.HasPrefix(rows[2], "fledge-plug") {
				t.Fatalf("want a header and two rows, none wrapped; screen:\n%s", p.screen())
			}
			if !strings.Contains(rows[2], "…") {
				t.Errorf("a row too long for %d columns is not cut with …:\n%s", cols, p.screen())
			}
			if cols >= 80 && !strings.Contains(rows[1], "👩\u200d💻") {
				t.Errorf("the emoji sequence is not drawn as itself:\n%s", p.screen())
			}
			if strings.Contains(p.screen(), `\u200d`) {
				t.Errorf("the emoji's joiner is shown escaped:\n%s", p.screen())
			}
		})
	}
}

// The -i picker's options fit a 60-column terminal, cut with "…": each
// is one line, none wrapped.
func TestTTYSearchPickerFitsTheWidth(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH; the real-terminal tests need it (CI installs tmux)")
	}
	t.Parallel()
	bin := buildFledge(t)
	e := newTTYEnv(t, tmux, bin)
	e.cols, e.rows = 60, 12
	a := e.repo("fledge-plugin-alpha", "", "")
	index := filepath.Join(e.dir, "index.json")
	doc := fmt.Sprintf(`[{"name":"fledge-plugin-alpha","repo":"file://%s","stars":5,"description":"%s"}]`, a, strings.Repeat("words that go on ", 10))
	if err := os.WriteFile(index, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	p := e.start(fmt.Sprintf("NO_COLOR=1 FLEDGE_REGISTRY_URL=file://%s %s plugins search --interactive", index, sq(bin)))
	p.waitFor("Select a plugin to install", "fledge-plugin-alpha")
	var opt string
	lines := strings.Split(p.screen(), "\n")
	for i, l := range lines {
		if strings.Contains(l, "fledge-plugin-alpha") {
			opt = l
			if i+1 < len(lines) && strings.Contains(lines[i+1], "words that go on") {
				t.Errorf("the option wrapped onto a second line:\n%s", p.screen())
			}
		}
	}
	if !strings.HasSuffix(strings.TrimRight(opt, " "), "…") {
		t.Errorf("the option is not cut with …: %q\n%s", opt, p.screen())
	}
	p.send("C-c")
	if rc := p.exitCode(); rc != 130 {
		t.Fatalf("exit %d; screen:\n%s", rc, p.screen())
	}
}
