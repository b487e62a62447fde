//go:build unix

package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// crashLoop kills fledge -9 at spread-out moments of installs — fresh ones
// and --force reinstalls over a recorded version — and checks after each
// that the next fledge command leaves the old state or the new one, with
// command links that match the record.
func crashLoop(t *testing.T, rounds int) {
	e := newHEnv(t)
	files := func(version string) map[string]string {
		f := hPlugin("fledge-plugin-k", version, "")
		f["VERSION"] = version
		for i := range 150 {
			f[fmt.Sprintf("data/%03d.txt", i)] = strings.Repeat(version, 200)
		}
		return f
	}
	e.local("q", hPlugin("fledge-plugin-q", "1.0.0", ""))
	e.local("k", files("1.0.0"))
	// How long an install takes here, to spread the kills over it.
	r := e.ok("plugins", "install", "./k", "--copy", "--json")
	span := r.took
	e.ok("plugins", "remove", "k", "--json")

	states := map[string]int{}
	for i := range rounds {
		fresh := i%2 == 0
		before := ""
		if p, ok := e.entries()["fledge-plugin-k"]; ok {
			before = p.Version
		}
		if fresh && before != "" {
			e.ok("plugins", "remove", "k", "--json")
			before = ""
		}
		if !fresh && before == "" {
			e.ok("plugins", "install", "./k", "--copy", "--json")
			before = e.entries()["fledge-plugin-k"].Version
		}
		version := fmt.Sprintf("1.0.%d", i+1)
		os.RemoveAll(filepath.Join(e.work, "k"))
		e.local("k", files(version))

		delay := span * time.Duration(i) / time.Duration(rounds-1)
		e.killAfter(delay, "plugins", "install", "./k", "--copy", "--force", "--json")

		// The next command recovers, whether it commits or only reads.
		e.nextCommand(i)
		p, recorded := e.entries()["fledge-plugin-k"]
		dir := filepath.Join(e.fh, "plugins", "fledge-plugin-k")
		link := filepath.Join(e.fh, "bin", "fledge-k")
		state := "absent"
		switch {
		case recorded && p.Version == version:
			state = "new"
		case recorded && p.Version == before:
			state = "old"
		case recorded:
			t.Errorf("round %d: recorded at %s, neither old %q nor new %s", i, p.Version, before, version)
		}
		if state == "absent" && before != "" {
			t.Errorf("round %d: a --force reinstall crash lost the old version %s", i, before)
		}
		states[state]++
		if recorded {
			r := e.run("plugins", "verify", "k", "--json")
			if st := hStr(hJSON(t, r), "results", 0, "status"); st != "ok" {
				t.Errorf("round %d (killed after %v): %s state does not verify: %s\n%v", i, delay, state, st, r)
			}
			if v, _ := os.ReadFile(filepath.Join(dir, "VERSION")); string(v) != p.Version {
				t.Errorf("round %d: the tree holds %q, the record says %s", i, v, p.Version)
			}
		} else if _, err := os.Lstat(dir); err == nil {
			t.Errorf("round %d (killed after %v): not recorded, but plugins/fledge-plugin-k exists", i, delay)
		}
		// Lstat, not Stat: a dangling link left by a removed tree must count.
		if _, err := os.Lstat(link); !recorded && err == nil {
			t.Errorf("round %d (killed after %v): not recorded, but bin/fledge-k exists", i, delay)
		}
		if recorded {
			target, err := filepath.EvalSymlinks(link)
			if err != nil || !strings.HasPrefix(target, dir+string(filepath.Separator)) {
				t.Errorf("round %d (killed after %v): recorded, but bin/fledge-k resolves to %q (%v), not into the tree", i, delay, target, err)
			}
		}
		e.leftoversAfter(i)
	}
	t.Logf("%d kill -9 rounds over a %v install: %v", rounds, span, states)
}

// killAfter starts fledge with args and kills it (-9) after delay.
func (e *hEnv) killAfter(delay time.Duration, args ...string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hardTimeout)
	defer cancel()
	cmd := e.command(ctx, args...)
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	time.Sleep(delay)
	cmd.Process.Kill()
	cmd.Wait()
}

// nextCommand runs, after round i's kill, one of: an install of another
// plugin (which commits), a list, or the killed plugin's command (which
// only read, and must recover just the same).
func (e *hEnv) nextCommand(i int) {
	e.t.Helper()
	switch i % 3 {
	case 0:
		e.ok("plugins", "install", "./q", "--copy", "--force", "--json")
	case 1:
		e.ok("plugins", "list", "--json")
	default:
		// Exit 0 when k is recorded, 2 (unknown command) when it is not.
		if r := e.run("k"); r.signal != 0 || (r.code != 0 && !strings.Contains(string(r.err), "unknown command")) {
			e.t.Errorf("fledge k after a crash\n%v", r)
		}
	}
}

// leftoversAfter checks what round i's next command must have cleared: a
// command that commits clears everything; one that only reads recovers
// half-changed plugins (the trash) and leaves a dead run's staging
// directory, which nothing reads, to the next change.
func (e *hEnv) leftoversAfter(i int) {
	e.t.Helper()
	if i%3 == 0 {
		e.noLeftovers()
		return
	}
	if ents, _ := os.ReadDir(filepath.Join(e.fh, "plugins", ".trash")); len(ents) > 0 {
		e.t.Errorf("round %d: leftovers in plugins/.trash after a reader: %d", i, len(ents))
	}
}

func TestCrashAnywhereInInstall(t *testing.T) {
	t.Parallel()
	crashLoop(t, 16)
}

// kill -9 at spread-out moments of removes: afterwards the plugin is still
// fully installed (and verifies) or fully gone.
func TestCrashAnywhereInRemove(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	f := hPlugin("fledge-plugin-k", "1.0.0", "")
	for i := range 150 {
		f[fmt.Sprintf("data/%03d.txt", i)] = strings.Repeat("x", 1000)
	}
	e.local("k", f)
	e.local("q", hPlugin("fledge-plugin-q", "1.0.0", ""))
	e.ok("plugins", "install", "./k", "--copy", "--json")
	span := e.ok("plugins", "remove", "k", "--json").took
	const rounds = 12
	states := map[string]int{}
	for i := range rounds {
		if _, ok := e.entries()["fledge-plugin-k"]; !ok {
			e.ok("plugins", "install", "./k", "--copy", "--json")
		}
		delay := span * time.Duration(i) / time.Duration(rounds-1)
		e.killAfter(delay, "plugins", "remove", "k", "--json")
		e.nextCommand(i)
		if _, ok := e.entries()["fledge-plugin-k"]; ok {
			states["installed"]++
			e.verified("fledge-plugin-k")
		} else {
			states["removed"]++
			e.absent("fledge-plugin-k", "k")
		}
		e.leftoversAfter(i)
	}
	t.Logf("%d kill -9 rounds over a %v remove: %v", rounds, span, states)
}
