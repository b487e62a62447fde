package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// These tests drive the real fledge binary in a real terminal (a tmux pane)
// to check that approval is read from a terminal only, and that what the
// user picks in the multi-select is exactly what plugins.toml records.

const ttyWait = testutil.WaitLimit

func TestTTYApproval(t *testing.T) {
	t.Parallel()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH; the real-terminal approval tests need it (CI installs tmux)")
	}
	bin := buildFledge(t)

	t.Run("deselect one item", func(t *testing.T) {
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		repo := e.repo("fledge-plugin-pick", "[capabilities]\nexec = true\nstore = true\n", "")
		p := e.start(fmt.Sprintf("%s plugins install --json file://%s > %s", sq(bin), repo, sq(e.out)))
		p.waitFor("Grant fledge-plugin-pick")
		// An unverified source preselects store but not exec. Deselect
		// store, select exec, confirm.
		p.wantOptions(map[string]bool{"store": true, "exec": false})
		p.set("store", false)
		p.set("exec", true)
		p.send("Enter")
		if rc := p.exitCode(); rc != 0 {
			t.Fatalf("install exited %d; screen:\n%s\nstdout:\n%s", rc, p.screen(), e.read(e.out))
		}
		caps := e.listCaps("fledge-plugin-pick")
		if want := (capsView{Exec: true}); caps != want {
			t.Fatalf("granted %+v, want %+v (only the kept item)", caps, want)
		}
	})

	t.Run("keep the defaults", func(t *testing.T) {
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		repo := e.repo("fledge-plugin-defaults", "[capabilities]\nexec = true\nstore = true\nmetadata = true\n", "")
		p := e.start(fmt.Sprintf("%s plugins install file://%s", sq(bin), repo))
		p.waitFor("Grant fledge-plugin-defaults")
		p.wantOptions(map[string]bool{"store": true, "metadata": true, "exec": false})
		p.ready()
		p.send("Enter")
		if rc := p.exitCode(); rc != 0 {
			t.Fatalf("install exited %d; screen:\n%s", rc, p.screen())
		}
		if caps, want := e.listCaps("fledge-plugin-defaults"), (capsView{Store: true, Metadata: true}); caps != want {
			t.Fatalf("granted %+v, want %+v (exec is not preselected for an unverified source)", caps, want)
		}
	})

	t.Run("a local source preselects everything", func(t *testing.T) {
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		build := `build = "mkdir -p bin && touch bin/x && chmod 755 bin/x"`
		dir := e.repo("fledge-plugin-mine", "[capabilities]\nexec = true\nmetadata = true\n", build)
		p := e.start(fmt.Sprintf("%s plugins install %s", sq(bin), sq(dir)))
		p.waitFor("Grant fledge-plugin-mine", "[local]")
		p.wantOptions(map[string]bool{"exec": true, "metadata": true, "hooks": true})
		p.ready()
		p.send("Enter")
		if rc := p.exitCode(); rc != 0 {
			t.Fatalf("install exited %d; screen:\n%s", rc, p.screen())
		}
		if caps, want := e.listCaps("fledge-plugin-mine"), (capsView{Exec: true, Metadata: true}); caps != want {
			t.Fatalf("granted %+v, want %+v", caps, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "bin", "x")); err != nil {
			t.Errorf("the approved build did not run: %v", err)
		}
	})

	t.Run("an unknown filesystem scope is not preselected", func(t *testing.T) {
		// Even from a trusted local path: a scope fledge does not know has
		// no bound, so the user must pick it.
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		build := `build = "mkdir -p bin && touch bin/x && chmod 755 bin/x"`
		dir := e.repo("fledge-plugin-wide", "[capabilities]\nexec = true\nfilesystem = \"home\"\n", build)
		p := e.start(fmt.Sprintf("%s plugins install --json %s > %s", sq(bin), sq(dir), sq(e.out)))
		p.waitFor("Grant fledge-plugin-wide", "unknown scope has no bound")
		p.wantOptions(map[string]bool{"exec": true, "hooks": true, "filesystem": false})
		p.ready()
		p.send("Enter")
		if rc := p.exitCode(); rc != 0 {
			t.Fatalf("install exited %d; screen:\n%s", rc, p.screen())
		}
		var doc struct {
			Installed []struct {
				Granted struct {
					Filesystem string `json:"filesystem"`
				} `json:"granted"`
			} `json:"installed"`
		}
		if err := json.Unmarshal([]byte(e.read(e.out)), &doc); err != nil || len(doc.Installed) != 1 {
			t.Fatalf("install --json: %v\n%s", err, e.read(e.out))
		}
		if got := doc.Installed[0].Granted.Filesystem; got != "none" {
			t.Errorf("filesystem granted %q by keeping the defaults, want none", got)
		}
	})

	t.Run("deselect all with a build hook", func(t *testing.T) {
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		build := `build = "mkdir -p bin && printf '#!/bin/sh\\n' > bin/x && chmod 755 bin/x && touch built-marker"`
		repo := e.repo("fledge-plugin-nohooks", "[capabilities]\nexec = true\nstore = true\n", build)
		p := e.start(fmt.Sprintf("%s plugins install --json file://%s > %s", sq(bin), repo, sq(e.out)))
		p.waitFor("Grant fledge-plugin-nohooks", "mkdir -p bin")
		// Preselected: store only. Deselect it and confirm: the form
		// refuses the answer (the build must run), says why, and stays
		// open; Ctrl+C then cancels with nothing installed and the build
		// not run.
		p.wantOptions(map[string]bool{"store": true, "exec": false, "hooks": false})
		p.set("store", false)
		p.wantOptions(map[string]bool{"store": false, "exec": false, "hooks": false})
		p.send("Enter")
		p.waitFor("fledge-plugin-nohooks cannot be installed without its hooks: select hooks, or press Ctrl+C to cancel")
		p.wantOptions(map[string]bool{"store": false, "exec": false, "hooks": false})
		p.send("C-c")
		if rc := p.exitCode(); rc != 130 {
			t.Fatalf("install exited %d, want 130; screen:\n%s", rc, p.screen())
		}
		e.wantNothingInstalled("fledge-plugin-nohooks")
		if _, err := os.Stat(filepath.Join(repo, "built-marker")); err == nil {
			t.Errorf("the unapproved build ran")
		}
	})

	t.Run("Esc cancels the approval as Ctrl+C does", func(t *testing.T) {
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		repo := e.repo("fledge-plugin-esc", "[capabilities]\nexec = true\nstore = true\n", "")
		p := e.start(fmt.Sprintf("%s plugins install --json file://%s > %s", sq(bin), repo, sq(e.out)))
		p.waitFor("Grant fledge-plugin-esc")
		p.ready()
		p.send("Escape")
		if rc := p.exitCode(); rc != 130 {
			t.Fatalf("Esc: install exited %d, want 130; screen:\n%s", rc, p.screen())
		}
		e.wantErrorCode(e.out, "interrupted")
		e.wantNothingInstalled("fledge-plugin-esc")
	})

	t.Run("the form fits 80x24 and 60x12", func(t *testing.T) {
		t.Parallel()
		for _, size := range [][2]int{{80, 24}, {60, 12}} {
			e := newTTYEnv(t, tmux, bin)
			e.cols, e.rows = size[0], size[1]
			// What would run, long enough to wrap at 60 columns, with what
			// a huh note would read as markup.
			hooks := map[string]string{
				"build":        "mkdir -p bin && printf x > bin/x && chmod 755 bin/x && echo 'a_b*c`d' > /dev/null",
				"post_install": "./setup.sh --with-a-long-option-name=value --and-another-one-too",
				"post_remove":  "./cleanup.sh",
			}
			var decl string
			for name, cmd := range hooks {
				decl += fmt.Sprintf("%s = %q\n", name, cmd)
			}
			repo := e.repo("fledge-plugin-many", "[capabilities]\nexec = true\nstore = true\nmetadata = true\nnetwork = true\nfilesystem = \"project\"\n", decl)
			p := e.start(fmt.Sprintf("NO_COLOR=1 %s plugins install --json file://%s > %s", sq(bin), repo, sq(e.out)))
			p.waitFor("Grant fledge-plugin-many")
			p.ready()
			// Every option on one line that fits, cut at a word with "…"
			// where it must be: none wraps, none is cut mid-word.
			for _, l := range strings.Split(p.screen(), "\n") {
				if m := optionRe().FindString(l); m != "" && len([]rune(l)) >= size[0] && !strings.HasSuffix(strings.TrimRight(l, " "), "…") {
					t.Errorf("%dx%d: an option runs to the edge uncut: %q", size[0], size[1], l)
				}
			}
			// The cursor walks to the last item and is on screen there.
			for range 6 {
				p.send("Down")
			}
			p.poll("the cursor on hooks, on screen", func(opts []option) bool {
				i := cursorAt(opts)
				return i >= 0 && opts[i].name == "hooks"
			})
			// Before the answer is confirmed, every hook's whole command has
			// been on screen: above the form where the screen keeps it in
			// view, else on pages after the choice (Enter turns them, the
			// last Enter confirms).
			seen := unwrapScreen(p.screen())
			if !showsAll(seen, hooks) {
				p.send("x") // the cursor is on hooks (its list does not fit to set it by name)
				p.poll("hooks selected", func(opts []option) bool {
					i := cursorAt(opts)
					return i >= 0 && opts[i].name == "hooks" && opts[i].selected
				})
				p.send("Enter")
				var pages int
				seen, pages = p.readPages("Read before confirming")
				// Shift+Tab goes back a page, and from the first to the choice.
				for range pages {
					p.send("BTab")
				}
				p.waitFor("Grant fledge-plugin-many")
			}
			for name, cmd := range hooks {
				if !strings.Contains(seen, cmd) {
					t.Errorf("%dx%d: the %s hook %q was never on screen whole; screens, unwrapped:\n%s", size[0], size[1], name, cmd, seen)
				}
			}
			if size[1] == 12 && !strings.Contains(seen, "Read before confirming") {
				t.Errorf("60x12: no review page, yet the hooks above the form are out of view")
			}
			p.send("C-c")
			if rc := p.exitCode(); rc != 130 {
				t.Fatalf("%dx%d: exit %d; screen:\n%s", size[0], size[1], rc, p.screen())
			}
		}
	})

	t.Run("every requested item is visible", func(t *testing.T) {
		// huh's MultiSelect scrolls to the first preselected option; exec,
		// unselected for an unverified plugin, must still be on screen
		// when the prompt opens. The contract says every requested
		// capability and hook is shown.
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		build := `build = "mkdir -p bin && touch bin/x && chmod 755 bin/x"`
		repo := e.repo("fledge-plugin-visible", "[capabilities]\nexec = true\nstore = true\nmetadata = true\n", build)
		p := e.start(fmt.Sprintf("%s plugins install file://%s", sq(bin), repo))
		p.waitFor("Grant fledge-plugin-visible")
		p.wantOptions(map[string]bool{"store": true, "metadata": true, "exec": false, "hooks": false})
		// Ctrl+C abandons the prompt: interrupted, nothing installed.
		p.send("C-c")
		if rc := p.exitCode(); rc != 130 {
			t.Errorf("Ctrl+C at the prompt exited %d, want 130; screen:\n%s", rc, p.screen())
		}
		e.wantNothingInstalled("fledge-plugin-visible")
	})

	t.Run("hostile text stays inert", func(t *testing.T) {
		// The prompt shows the plugin's description. If an escape sequence
		// reached the terminal, tmux would retitle the pane (OSC 2) and
		// the screen would be cleared (CSI 2J). (A hook holding one is
		// refused before the prompt: see "hidden hook code is refused".)
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		build := `build = "mkdir -p bin && touch bin/x && chmod 755 bin/x"`
		repo := e.repo("fledge-plugin-inert", "[capabilities]\nstore = true\n", build)
		manifest := filepath.Join(repo, "plugin.toml")
		data, err := os.ReadFile(manifest)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.Replace(string(data), `description = "tty fixture"`,
			`description = "nice\u001b]2;pwned\u0007\u001b[2J\u001b[Hplugin\u202e"`, 1))
		if err := os.WriteFile(manifest, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := commitAllIn(repo, "hostile description"); err != nil {
			t.Fatal(err)
		}
		p := e.start(fmt.Sprintf("%s plugins install file://%s", sq(bin), repo))
		p.waitFor("Grant fledge-plugin-inert")
		p.wantOptions(map[string]bool{"store": true, "hooks": false})
		if title := strings.TrimSpace(p.tmuxCmd("display", "-p", "-t", "t", "#{pane_title}")); strings.Contains(title, "pwned") {
			t.Errorf("the pane was retitled to %q", title)
		}
		if s := p.screen(); !strings.Contains(s, "Fetching") || !strings.Contains(s, "nice") {
			t.Errorf("the screen was cleared or the description lost:\n%s", s)
		}
		p.send("C-c")
		if rc := p.exitCode(); rc != 130 {
			t.Errorf("Ctrl+C exited %d, want 130", rc)
		}
		if title := strings.TrimSpace(p.tmuxCmd("display", "-p", "-t", "t", "#{pane_title}")); strings.Contains(title, "pwned") {
			t.Errorf("the pane was retitled to %q", title)
		}
	})

	t.Run("a multi-line hook is shown escaped on one line", func(t *testing.T) {
		// What is approved is what runs: a hook's newlines are shown as
		// \n (and a literal backslash as \\), not folded into spaces, so
		// the approved line unescapes to exactly the recorded command.
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		hook := "mkdir -p bin\nprintf '#!/bin/sh\\n' > bin/x\nchmod 755 bin/x\n"
		build := "build = '''\n" + hook + "'''"
		repo := e.repo("fledge-plugin-lines", "[capabilities]\nstore = true\n", build)
		p := e.start(fmt.Sprintf("%s plugins install file://%s", sq(bin), repo))
		p.waitFor("Grant fledge-plugin-lines",
			`build            mkdir -p bin\nprintf '#!/bin/sh\\n' > bin/x\nchmod 755 bin/x\n`,
			`(shown escaped: \n is a newline, \t a tab, \\ a backslash)`)
		p.set("hooks", true)
		p.send("Enter")
		if rc := p.exitCode(); rc != 0 {
			t.Fatalf("install exited %d; screen:\n%s", rc, p.screen())
		}
		var doc struct {
			Audit []struct {
				Hooks map[string]string `json:"approved_hooks"`
			} `json:"audit"`
		}
		out := e.fledge("plugins", "audit", "--json")
		if err := json.Unmarshal(out, &doc); err != nil || len(doc.Audit) != 1 {
			t.Fatalf("audit --json: %v\n%s", err, out)
		}
		if got := doc.Audit[0].Hooks["build"]; got != hook {
			t.Errorf("recorded build hook %q, want the approved %q", got, hook)
		}
		if _, err := os.Stat(filepath.Join(e.home, "plugins", "fledge-plugin-lines", "bin", "x")); err != nil {
			t.Errorf("the approved build did not run: %v", err)
		}
	})

	t.Run("hidden hook code is refused before the prompt", func(t *testing.T) {
		// The 8-bit OSC (U+009D … BEL) hides the payload line from any
		// display that strips escape sequences: the prompt would have shown
		// "make #". It never appears; install and update refuse, naming
		// the field, and nothing runs.
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		hidden := "build = \"make #\u009d\\ntouch $HOME/pwned; echo $AWS_SECRET_ACCESS_KEY >$HOME/stolen\\n#\\u0007\""
		repo := e.repo("fledge-plugin-hidden", "[capabilities]\nstore = true\n", hidden)
		p := e.start(fmt.Sprintf("%s plugins install file://%s", sq(bin), repo))
		if rc := p.exitCode(); rc != 1 {
			t.Fatalf("install exited %d, want 1; screen:\n%s", rc, p.screen())
		}
		if s := p.screen(); strings.Contains(s, "Grant") || !strings.Contains(s, "hooks.build: contains U+009D") {
			t.Errorf("want the refusal naming hooks.build and no prompt; screen:\n%s", s)
		}
		e.wantNothingInstalled("fledge-plugin-hidden")
		e.wantNotRun()

		// update: v1 is clean, v2 adds the hidden build hook.
		up := e.repo("fledge-plugin-upd", "[capabilities]\nstore = true\n", "")
		e.fledge("plugins", "install", "file://"+up, "--yes")
		manifest := filepath.Join(up, "plugin.toml")
		data, err := os.ReadFile(manifest)
		if err != nil {
			t.Fatal(err)
		}
		v2 := strings.Replace(string(data), `version = "0.1.0"`, `version = "0.2.0"`, 1) + "\n[hooks]\n" + hidden + "\n"
		if err := os.WriteFile(manifest, []byte(v2), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := commitAllIn(up, "v2"); err != nil {
			t.Fatal(err)
		}
		// A second tmux server for the second command (same home).
		e2 := *e
		e2.sock = filepath.Join(e.dir, "tmux2.sock")
		t.Cleanup(func() { _ = exec.Command(tmux, "-S", e2.sock, "kill-server").Run() })
		if err := os.Remove(e.rc()); err != nil {
			t.Fatal(err)
		}
		p = e2.start(fmt.Sprintf("%s plugins update", sq(bin)))
		if rc := p.exitCode(); rc != 1 {
			t.Fatalf("update exited %d, want 1; screen:\n%s", rc, p.screen())
		}
		if s := p.screen(); strings.Contains(s, "Grant") || !strings.Contains(s, "hooks.build: contains U+009D") {
			t.Errorf("want the refusal naming hooks.build and no prompt; screen:\n%s", s)
		}
		e.wantNotRun()
		if !strings.Contains(string(e.fledge("plugins", "list", "--json")), `"version": "0.1.0"`) {
			t.Errorf("update changed the installed version")
		}
	})

	t.Run("piped stdin is not consent", func(t *testing.T) {
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		repo := e.repo("fledge-plugin-piped", "[capabilities]\nstore = true\n", "")
		// stderr is the terminal, stdin is a pipe full of "yes".
		p := e.start(fmt.Sprintf("yes | %s plugins install --json file://%s > %s", sq(bin), repo, sq(e.out)))
		if rc := p.exitCode(); rc != 1 {
			t.Fatalf("install exited %d, want 1; screen:\n%s", rc, p.screen())
		}
		if s := p.screen(); strings.Contains(s, "Grant fledge-plugin") {
			t.Errorf("a prompt was shown with piped stdin:\n%s", s)
		}
		e.wantErrorCode(e.out, "approval_required")
		e.wantNothingInstalled("fledge-plugin-piped")
	})

	t.Run("stderr not a terminal is not consent", func(t *testing.T) {
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		repo := e.repo("fledge-plugin-noerr", "[capabilities]\nstore = true\n", "")
		errFile := filepath.Join(e.dir, "err.txt")
		p := e.start(fmt.Sprintf("%s plugins install --json file://%s > %s 2> %s", sq(bin), repo, sq(e.out), sq(errFile)))
		if rc := p.exitCode(); rc != 1 {
			t.Fatalf("install exited %d, want 1; screen:\n%s\nstderr:\n%s", rc, p.screen(), e.read(errFile))
		}
		e.wantErrorCode(e.out, "approval_required")
		e.wantNothingInstalled("fledge-plugin-noerr")
	})
}

// ttyEnv is one test's FLEDGE_HOME, fixtures and tmux server.
type ttyEnv struct {
	t    *testing.T
	tmux string
	bin  string
	dir  string // everything lives here
	sock string
	home string
	out  string // where a command's stdout is redirected
	// cols and rows size the terminal (150x50 when zero).
	cols, rows int
}

func newTTYEnv(t *testing.T, tmux, bin string) *ttyEnv {
	// A short directory: tmux's socket path must fit in sun_path.
	dir, err := os.MkdirTemp("", "fledge-tty-")
	if err != nil {
		t.Fatal(err)
	}
	e := &ttyEnv{t: t, tmux: tmux, bin: bin, dir: dir, sock: filepath.Join(dir, "tmux.sock"),
		home: filepath.Join(dir, "fh"), out: filepath.Join(dir, "out.json")}
	t.Cleanup(func() {
		_ = exec.Command(tmux, "-S", e.sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	return e
}

func (e *ttyEnv) env() []string {
	return []string{
		"FLEDGE_HOME=" + e.home,
		"HOME=" + filepath.Join(e.dir, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(e.dir, "home", ".config"),
		"FLEDGE_GITHUB_URL=file://" + filepath.Join(e.dir, "gh"),
		"FLEDGE_GITHUB_API=http://127.0.0.1:1",
		"FLEDGE_REGISTRY_URL=http://127.0.0.1:1/index.json",
		"FLEDGE_NON_INTERACTIVE=",
		"GITHUB_TOKEN=", "GH_TOKEN=",
		"TERM=xterm-256color",
	}
}

// repo builds a git repository holding a plugin with one command whose
// binary is committed unless a build hook makes it.
func (e *ttyEnv) repo(name, caps, buildHook string) string {
	e.t.Helper()
	dir := filepath.Join(e.dir, "repos", name)
	files := map[string]string{
		"plugin.toml": fmt.Sprintf("[plugin]\nname = %q\nversion = \"0.1.0\"\ndescription = \"tty fixture\"\n\n[[commands]]\nname = %q\nbinary = \"bin/x\"\n\n%s\n", name, strings.TrimPrefix(name, "fledge-plugin-"), caps),
	}
	if buildHook != "" {
		files["plugin.toml"] += "\n[hooks]\n" + buildHook + "\n"
	} else {
		files["bin/x"] = "#!/bin/sh\necho hi\n"
	}
	writeTree(e.t, dir, files)
	if _, err := initRepo(dir); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

func (e *ttyEnv) read(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// start runs shellCmd in a new tmux session; its exit code goes to a file
// and the pane stays open so its screen can still be read.
func (e *ttyEnv) start(shellCmd string) *pane {
	e.t.Helper()
	rc := e.rc()
	var envs []string
	for _, kv := range e.env() {
		envs = append(envs, sq(kv))
	}
	script := fmt.Sprintf("cd %s && env %s sh -c %s; echo $? > %s.tmp && mv %s.tmp %s; sleep 600",
		sq(e.dir), strings.Join(envs, " "), sq(shellCmd), sq(rc), sq(rc), sq(rc))
	cols, rows := 150, 50
	if e.cols > 0 {
		cols, rows = e.cols, e.rows
	}
	cmd := exec.Command(e.tmux, "-S", e.sock, "-f", "/dev/null", "new-session", "-d", "-s", "t",
		"-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), script)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	return &pane{e: e, rc: rc}
}

type pane struct {
	e  *ttyEnv
	rc string
}

func (p *pane) tmuxCmd(args ...string) string {
	out, err := exec.Command(p.e.tmux, append([]string{"-S", p.e.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.e.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (p *pane) screen() string { return p.tmuxCmd("capture-pane", "-p", "-t", "t") }

// waitFor polls the screen until it shows every one of texts.
func (p *pane) waitFor(texts ...string) {
	p.e.t.Helper()
	deadline := time.Now().Add(ttyWait)
	for {
		s := p.screen()
		ok := true
		for _, x := range texts {
			if !strings.Contains(s, x) {
				ok = false
			}
		}
		if ok {
			return
		}
		if _, err := os.Stat(p.rc); err == nil || time.Now().After(deadline) {
			p.e.t.Fatalf("the screen never showed %q; it shows:\n%s", texts, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// option is one line of the approval multi-select as drawn.
type option struct {
	name             string
	selected, cursor bool
}

// optionRe matches a multi-select line: "┃ > ✓ store   keep data…".
var optionRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^┃\s+(>\s+)?([✓•])\s+(exec|store|metadata|network|filesystem|hooks)\b`)
})

func (p *pane) options() []option {
	var out []option
	for _, m := range optionRe().FindAllStringSubmatch(p.screen(), -1) {
		out = append(out, option{name: m[3], selected: m[2] == "✓", cursor: m[1] != ""})
	}
	return out
}

// poll calls ok with the options on screen until it returns true.
func (p *pane) poll(what string, ok func([]option) bool) {
	p.e.t.Helper()
	deadline := time.Now().Add(ttyWait)
	for !ok(p.options()) {
		if time.Now().After(deadline) {
			p.e.t.Fatalf("the prompt never showed %s; screen:\n%s", what, p.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wantOptions waits until exactly the options in want are on screen, each
// selected or not as want says.
func (p *pane) wantOptions(want map[string]bool) {
	p.e.t.Helper()
	p.poll(fmt.Sprintf("options %v", want), func(opts []option) bool {
		if len(opts) != len(want) {
			return false
		}
		for _, o := range opts {
			if sel, ok := want[o.name]; !ok || sel != o.selected {
				return false
			}
		}
		return true
	})
}

// unwrapScreen is a screen with each line as printed and, after it, the
// screen's lines joined where a form wrapped them: each with the form's
// border taken off ("┃ ") and a review page's wrap mark (hardWrap).
func unwrapScreen(s string) string {
	var joined strings.Builder
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimPrefix(l, "┃ ")
		if m := strings.TrimRight(l, " "); strings.HasSuffix(m, cli.WrapMark) {
			l = strings.TrimSuffix(m, cli.WrapMark)
		}
		joined.WriteString(l)
	}
	return s + "\n" + joined.String()
}

func cursorAt(opts []option) int {
	for i, o := range opts {
		if o.cursor {
			return i
		}
	}
	return -1
}

// ready proves the prompt is reading keys before anything that matters is
// sent: "go to end" and "go to start" are idempotent, so they are re-sent
// until the cursor is seen to move (a key sent while the program starts
// up may be lost).
// readPages reads the review pages a question shows after the choice,
// turning with Enter each but the last (which would confirm), and returns
// what they showed, unwrapped (see unwrapScreen), and how many there were.
func (p *pane) readPages(title string) (string, int) {
	p.e.t.Helper()
	var seen []string
	turned := "" // the title line of the page last turned
	deadline := time.Now().Add(ttyWait)
	for {
		s := p.screen()
		line := ""
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, title) {
				line = l
			}
		}
		if line != "" && line != turned {
			seen = append(seen, unwrapScreen(s))
			m := regexp.MustCompile(`\((\d+)/(\d+)\)`).FindStringSubmatch(line)
			if m == nil || m[1] == m[2] {
				return strings.Join(seen, "\n"), len(seen)
			}
			turned = line
			p.send("Enter")
		}
		if _, err := os.Stat(p.rc); err == nil || time.Now().After(deadline) {
			p.e.t.Fatalf("the screen never showed the next page of %q; it shows:\n%s", title, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// showsAll reports whether screen shows every command in hooks.
func showsAll(screen string, hooks map[string]string) bool {
	for _, cmd := range hooks {
		if !strings.Contains(screen, cmd) {
			return false
		}
	}
	return true
}

func (p *pane) ready() {
	p.e.t.Helper()
	for _, step := range []struct {
		key  string
		last bool
	}{{"G", true}, {"g", false}} {
		deadline := time.Now().Add(ttyWait)
		for {
			opts := p.options()
			want := 0
			if step.last {
				want = len(opts) - 1
			}
			if len(opts) > 0 && cursorAt(opts) == want {
				break
			}
			if time.Now().After(deadline) {
				p.e.t.Fatalf("the prompt does not react to %q; screen:\n%s", step.key, p.screen())
			}
			p.send(step.key)
			time.Sleep(300 * time.Millisecond)
		}
	}
}

// set moves the cursor to the named option and toggles it to on.
func (p *pane) set(name string, on bool) {
	p.e.t.Helper()
	p.ready()
	for {
		opts := p.options()
		idx := -1
		for i, o := range opts {
			if o.name == name {
				idx = i
			}
		}
		if idx < 0 {
			p.e.t.Fatalf("no option %s; screen:\n%s", name, p.screen())
		}
		cur := cursorAt(opts)
		if cur == idx {
			if opts[idx].selected != on {
				p.send("x")
				p.poll(fmt.Sprintf("%s toggled", name), func(o []option) bool {
					return len(o) == len(opts) && o[idx].selected == on
				})
			}
			return
		}
		key := "j"
		if cur > idx {
			key = "k"
		}
		p.send(key)
		p.poll("the cursor move", func(o []option) bool { return cursorAt(o) != cur })
	}
}

func (p *pane) send(k string) { p.tmuxCmd("send-keys", "-t", "t", k) }

// exitCode waits for the command to finish and returns its exit status.
func (p *pane) exitCode() int {
	p.e.t.Helper()
	deadline := time.Now().Add(ttyWait)
	for {
		if b, err := os.ReadFile(p.rc); err == nil {
			var rc int
			if _, err := fmt.Sscan(string(b), &rc); err != nil {
				p.e.t.Fatalf("exit code file: %q", b)
			}
			return rc
		}
		if time.Now().After(deadline) {
			p.e.t.Fatalf("the command did not finish; screen:\n%s", p.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type capsView struct {
	Exec     bool `json:"exec"`
	Store    bool `json:"store"`
	Metadata bool `json:"metadata"`
	Network  bool `json:"network"`
}

// fledge runs the binary outside the terminal (stdin from /dev/null).
func (e *ttyEnv) fledge(args ...string) []byte {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(os.Environ(), e.env()...)
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("fledge %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (e *ttyEnv) listCaps(name string) capsView {
	e.t.Helper()
	var doc struct {
		Plugins []struct {
			Name         string   `json:"name"`
			Capabilities capsView `json:"capabilities"`
		} `json:"plugins"`
	}
	out := e.fledge("plugins", "list", "--json")
	if err := json.Unmarshal(out, &doc); err != nil {
		e.t.Fatalf("list --json: %v\n%s", err, out)
	}
	for _, p := range doc.Plugins {
		if p.Name == name {
			return p.Capabilities
		}
	}
	e.t.Fatalf("%s is not installed; list --json:\n%s", name, out)
	return capsView{}
}

func (e *ttyEnv) wantErrorCode(file, code string) {
	e.t.Helper()
	var doc struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	b := e.read(file)
	if err := json.Unmarshal([]byte(b), &doc); err != nil || doc.Error.Code != code {
		e.t.Fatalf("want error code %s in %s (%v):\n%s", code, file, err, b)
	}
}

// wantNotRun: the payload of a hidden hook never ran.
func (e *ttyEnv) wantNotRun() {
	e.t.Helper()
	for _, f := range []string{"pwned", "stolen"} {
		if _, err := os.Stat(filepath.Join(e.dir, "home", f)); err == nil {
			e.t.Errorf("the hidden payload ran: $HOME/%s exists", f)
		}
	}
}

// rc is where start records the exit code.
func (e *ttyEnv) rc() string { return filepath.Join(e.dir, "rc") }

func (e *ttyEnv) wantNothingInstalled(name string) {
	e.t.Helper()
	if _, err := os.Lstat(filepath.Join(e.home, "plugins", name)); !os.IsNotExist(err) {
		e.t.Errorf("plugins/%s exists after a refused install (%v)", name, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.home, "plugins", ".staging")); len(entries) > 0 {
		e.t.Errorf("staging leftovers: %v", entries)
	}
	var doc struct {
		Plugins []json.RawMessage `json:"plugins"`
	}
	out := e.fledge("plugins", "list", "--json")
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Plugins) != 0 {
		e.t.Errorf("want no plugins recorded (%v):\n%s", err, out)
	}
}

// sq quotes s for sh.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// commitAllIn commits every change in the repository at dir.
func commitAllIn(dir, msg string) (plumbing.Hash, error) {
	r, err := git.PlainOpen(dir)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return commitAll(r, msg)
}
