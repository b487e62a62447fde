package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The approval form in a real terminal: it marks the hooks an install
// cannot do without and refuses an answer without them before it is
// submitted, leaves what was granted on screen, starts a reinstall from
// the current grants, and (as plugins grant) changes grants both ways.

// hooksRepo builds a plugin repository whose binary is committed and whose
// manifest declares hooks as given.
func (e *ttyEnv) hooksRepo(name, version, caps, hooks string) string {
	e.t.Helper()
	dir := filepath.Join(e.dir, "repos", name)
	files := map[string]string{
		"plugin.toml": fmt.Sprintf("[plugin]\nname = %q\nversion = %q\ndescription = \"tty fixture\"\n\n[[commands]]\nname = %q\nbinary = \"bin/x\"\n\n%s\n\n[hooks]\n%s\n",
			name, version, strings.TrimPrefix(name, "fledge-plugin-"), caps, hooks),
		"bin/x": "#!/bin/sh\necho hi\n",
	}
	writeTree(e.t, dir, files)
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		if _, err := commitAllIn(dir, "v"+version); err != nil {
			e.t.Fatal(err)
		}
	} else if _, err := initRepo(dir); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

func lookTmux(t *testing.T) string {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH; the real-terminal approval tests need it (CI installs tmux)")
	}
	return tmux
}

func TestTTYApprovalForm(t *testing.T) {
	t.Parallel()
	tmux := lookTmux(t)
	bin := buildFledge(t)

	t.Run("required hooks: Enter on the defaults says why and keeps the form", func(t *testing.T) {
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		repo := e.hooksRepo("fledge-plugin-req", "0.1.0", "[capabilities]\nexec = true\nstore = true\n", `post_install = "touch post_install.ran"`)
		p := e.start(fmt.Sprintf("%s plugins install file://%s", sq(bin), repo))
		// Marked before anything is submitted: in the option and the
		// description.
		p.waitFor("Grant fledge-plugin-req", "hooks        REQUIRED to install: run the hooks and build command listed above",
			"Its hooks are required to install it.")
		p.wantOptions(map[string]bool{"store": true, "exec": false, "hooks": false})
		p.ready()
		p.send("Enter")
		p.waitFor("fledge-plugin-req cannot be installed without its hooks: select hooks, or press Ctrl+C to cancel")
		if _, err := os.Stat(e.rc()); err == nil {
			t.Fatalf("Enter without the required hooks ended the form; screen:\n%s", p.screen())
		}
		p.set("hooks", true)
		p.send("Enter")
		if rc := p.exitCode(); rc != 0 {
			t.Fatalf("install exited %d; screen:\n%s", rc, p.screen())
		}
		// The form has cleared itself; what was granted stays on screen.
		p.waitFor("✓ Granted fledge-plugin-req: store, hooks; denied: exec", "✓ Installed fledge-plugin-req 0.1.0",
			"granted: store, hooks; denied: exec")
		t.Logf("screen after the form:\n%s", p.screen())
		if caps, want := e.listCaps("fledge-plugin-req"), (capsView{Store: true}); caps != want {
			t.Errorf("granted %+v, want %+v", caps, want)
		}
		if _, err := os.Stat(filepath.Join(e.home, "plugins", "fledge-plugin-req", "post_install.ran")); err != nil {
			t.Errorf("the approved post_install did not run: %v", err)
		}
	})

	t.Run("a reinstall starts from the current grants and names the versions", func(t *testing.T) {
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		caps := "[capabilities]\nexec = true\nstore = true\nmetadata = true\n"
		repo := e.hooksRepo("fledge-plugin-again", "0.1.0", caps, `post_remove = "true"`)
		e.fledge("plugins", "install", "file://"+repo, "--grant", "exec,hooks")
		repo = e.hooksRepo("fledge-plugin-again", "0.2.0", caps+"network = true\n", `post_remove = "true"`)
		p := e.start(fmt.Sprintf("%s plugins install --force file://%s", sq(bin), repo))
		p.waitFor("Grant fledge-plugin-again", "installed now:   0.1.0 (commit ", "), granted exec, hooks", "replaced with:   0.2.0 (commit ")
		// exec and hooks as granted; store and metadata denied before stay
		// denied; network is new, and unverified: not preselected.
		p.wantOptions(map[string]bool{"exec": true, "hooks": true, "store": false, "metadata": false, "network": false})
		p.ready()
		p.send("Enter")
		if rc := p.exitCode(); rc != 0 {
			t.Fatalf("install exited %d; screen:\n%s", rc, p.screen())
		}
		p.waitFor("✓ Granted fledge-plugin-again: exec, hooks; denied: store, metadata, network",
			"✓ Reinstalled fledge-plugin-again 0.2.0", "replaced: 0.1.0 (commit ")
		if caps, want := e.listCaps("fledge-plugin-again"), (capsView{Exec: true}); caps != want {
			t.Errorf("granted %+v, want %+v (the grants as they were)", caps, want)
		}
	})

	t.Run("plugins grant on a terminal changes grants both ways", func(t *testing.T) {
		t.Parallel()
		e := newTTYEnv(t, tmux, bin)
		repo := e.hooksRepo("fledge-plugin-g", "0.1.0", "[capabilities]\nexec = true\nstore = true\n", `post_remove = "true"`)
		e.fledge("plugins", "install", "file://"+repo, "--grant", "store")
		p := e.start(fmt.Sprintf("%s plugins grant g", sq(bin)))
		p.waitFor("Grant fledge-plugin-g", "granted now: store", "post_remove")
		p.wantOptions(map[string]bool{"store": true, "exec": false, "hooks": false})
		p.set("exec", true)
		p.set("store", false)
		p.send("Enter")
		if rc := p.exitCode(); rc != 0 {
			t.Fatalf("grant exited %d; screen:\n%s", rc, p.screen())
		}
		p.waitFor("✓ Granted fledge-plugin-g: exec; denied: store, hooks", "✓ fledge-plugin-g: granted exec; revoked store (from its next run)")
		if caps, want := e.listCaps("fledge-plugin-g"), (capsView{Exec: true}); caps != want {
			t.Errorf("granted %+v, want %+v", caps, want)
		}
	})
}
