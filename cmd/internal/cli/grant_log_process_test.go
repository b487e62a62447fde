//go:build unix

package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// logRecords is audit --log --json's records.
func (e *hEnv) logRecords() []map[string]any {
	e.t.Helper()
	doc := hJSON(e.t, e.ok("plugins", "audit", "--log", "--json"))
	var out []map[string]any
	for _, r := range doc["records"].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}

// verifyLog is audit --verify-log --json's grant_log, and its exit code.
func (e *hEnv) verifyLog() (map[string]any, int) {
	e.t.Helper()
	r := e.run("plugins", "audit", "--verify-log", "--json")
	return hJSON(e.t, r)["grant_log"].(map[string]any), r.code
}

// logLines is grants.log's lines as they are on disk.
func (e *hEnv) logLines() []string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.fh, "grants.log"))
	if err != nil {
		e.t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	return lines[:len(lines)-1] // after the last newline: nothing
}

// num renders a JSON number (or anything) at path as text.
func num(v any, path ...any) string { return fmt.Sprint(hGet(v, path...)) }

// 16 fledge processes installing at once, then 16 granting at once: the
// log holds exactly one record for each change, in one valid chain.
func TestGrantLogConcurrentWriters(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	const n = 16
	for i := range n {
		e.local(fmt.Sprintf("w%d", i), hPlugin(fmt.Sprintf("fledge-plugin-w%d", i), "1.0.0", "\n[capabilities]\nstore = true\nmetadata = true\n"))
	}
	all := func(args func(i int) []string) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failures []string
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if r := e.run(args(i)...); r.code != 0 {
					mu.Lock()
					failures = append(failures, r.String())
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(failures) > 0 {
			t.Fatal(strings.Join(failures, "\n"))
		}
	}
	all(func(i int) []string {
		return []string{"plugins", "install", fmt.Sprintf("./w%d", i), "--copy", "--grant", "store"}
	})
	all(func(i int) []string { return []string{"plugins", "grant", fmt.Sprintf("w%d", i), "metadata"} })

	g, code := e.verifyLog()
	if code != 0 || g["ok"] != true || num(g, "records") != "32" {
		t.Fatalf("the log does not verify: %v", g)
	}
	recs := e.logRecords()
	if len(recs) != 2*n || len(e.logLines()) != 2*n {
		t.Fatalf("%d records, %d lines, want %d", len(recs), len(e.logLines()), 2*n)
	}
	seen := map[string]int{}
	for i, r := range recs {
		if num(r, "seq") != fmt.Sprint(i+1) {
			t.Errorf("record %d has seq %v", i+1, r["seq"])
		}
		seen[hStr(r, "plugin")+" "+hStr(r, "action")]++
	}
	var keys []string
	for k, c := range seen {
		if c != 1 {
			t.Errorf("%s: %d records", k, c)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) != 2*n {
		t.Errorf("changes recorded: %v", keys)
	}
}

// crashAfterLog runs fledge with args and requires it to die of SIGKILL
// right after the grant log took its record, before plugins.toml was
// written (the test binary's FLEDGE_TEST_KILL_AFTER_LOG hook).
func (e *hEnv) crashAfterLog(args ...string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hardTimeout)
	defer cancel()
	cmd := e.command(ctx, args...)
	cmd.Env = append(cmd.Env, "FLEDGE_TEST_KILL_AFTER_LOG=1")
	if r := e.exec(cmd, args); r.signal != syscall.SIGKILL {
		e.t.Fatalf("fledge was not killed after logging\n%v", r)
	}
}

// kill -9 in the window between the grant log's append and plugins.toml's
// rename, in each kind of change: afterwards the change did not happen, the
// log shows no record of it (the record past plugins.toml's anchor is
// pending, and the next change discards it), and the next change is
// recorded exactly once.
func TestGrantLogCrashWindow(t *testing.T) {
	t.Parallel()
	extra := "\n[capabilities]\nstore = true\nmetadata = true\n"

	t.Run("grant", func(t *testing.T) {
		t.Parallel()
		e := newHEnv(t)
		e.local("p", hPlugin("fledge-plugin-p", "1.0.0", extra))
		e.ok("plugins", "install", "./p", "--copy", "--grant", "store")
		before := e.pluginsToml()
		e.crashAfterLog("plugins", "grant", "p", "metadata")
		if !bytes.Equal(e.pluginsToml(), before) {
			t.Fatal("plugins.toml changed")
		}
		if n := len(e.logLines()); n != 2 {
			t.Fatalf("fixture: the log holds %d lines, want the committed one and the crashed one", n)
		}
		if g, code := e.verifyLog(); code != 0 || num(g, "records") != "1" || num(g, "pending") != "1" {
			t.Fatalf("after the crash: exit %d, %v", code, g)
		}
		if recs := e.logRecords(); len(recs) != 1 {
			t.Fatalf("audit --log shows %d records after the crash", len(recs))
		}
		e.ok("plugins", "grant", "p", "metadata")
		recs := e.logRecords()
		if len(recs) != 2 || hStr(recs[1], "action") != "grant" || num(recs[1], "seq") != "2" || len(e.logLines()) != 2 {
			t.Fatalf("after the next change: %v (%d lines)", recs, len(e.logLines()))
		}
		if g, code := e.verifyLog(); code != 0 || num(g, "pending") != "0" {
			t.Fatalf("%v", g)
		}
	})

	t.Run("install", func(t *testing.T) {
		t.Parallel()
		e := newHEnv(t)
		e.local("p", hPlugin("fledge-plugin-p", "1.0.0", extra))
		e.local("q", hPlugin("fledge-plugin-q", "1.0.0", extra))
		e.ok("plugins", "install", "./p", "--copy", "--grant", "store")
		e.crashAfterLog("plugins", "install", "./q", "--copy", "--grant", "store")
		// The next command, of any kind, puts back the old state.
		e.ok("plugins", "list", "--json")
		if _, ok := e.entries()["fledge-plugin-q"]; ok {
			t.Fatal("q is recorded")
		}
		e.absent("fledge-plugin-q")
		if recs := e.logRecords(); len(recs) != 1 {
			t.Fatalf("%d records", len(recs))
		}
		e.ok("plugins", "install", "./q", "--copy", "--grant", "store")
		recs := e.logRecords()
		if len(recs) != 2 || hStr(recs[1], "plugin") != "fledge-plugin-q" {
			t.Fatalf("%v", recs)
		}
		if g, code := e.verifyLog(); code != 0 {
			t.Fatalf("%v", g)
		}
	})

	t.Run("remove", func(t *testing.T) {
		t.Parallel()
		e := newHEnv(t)
		e.local("p", hPlugin("fledge-plugin-p", "1.0.0", extra))
		e.ok("plugins", "install", "./p", "--copy", "--grant", "store")
		e.crashAfterLog("plugins", "remove", "p")
		e.ok("plugins", "list", "--json")
		e.verified("fledge-plugin-p", "p")
		if recs := e.logRecords(); len(recs) != 1 {
			t.Fatalf("%d records", len(recs))
		}
		e.ok("plugins", "remove", "p")
		recs := e.logRecords()
		if len(recs) != 2 || hStr(recs[1], "action") != "remove" {
			t.Fatalf("%v", recs)
		}
		if g, code := e.verifyLog(); code != 0 {
			t.Fatalf("%v", g)
		}
	})
}

// audit --verify-log names the record that was edited, removed or
// reordered, and exits 1; audit --strict fails on it too.
func TestGrantLogTampering(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("p", hPlugin("fledge-plugin-p", "1.0.0", "\n[capabilities]\nstore = true\nmetadata = true\nexec = true\n"))
	e.ok("plugins", "install", "./p", "--copy", "--grant", "store")
	e.ok("plugins", "grant", "p", "metadata")
	e.ok("plugins", "grant", "p", "exec")
	e.ok("plugins", "revoke", "p", "exec")
	lines := e.logLines()
	logPath := filepath.Join(e.fh, "grants.log")
	for _, c := range []struct {
		name   string
		log    string
		kind   string
		record string
	}{
		{"edited", lines[0] + strings.Replace(lines[1], `"metadata"`, `"network"`, 1) + lines[2] + lines[3], "edited", "2"},
		{"edited last", lines[0] + lines[1] + lines[2] + strings.Replace(lines[3], `"user":"`, `"user":"x`, 1), "edited", "4"},
		{"removed", lines[0] + lines[2] + lines[3], "removed", "3"},
		{"removed last", lines[0] + lines[1] + lines[2], "truncated", "4"},
		{"reordered", lines[0] + lines[2] + lines[1] + lines[3], "reordered", "2"},
	} {
		if err := os.WriteFile(logPath, []byte(c.log), 0o644); err != nil {
			t.Fatal(err)
		}
		g, code := e.verifyLog()
		probs, _ := g["problems"].([]any)
		if code != 1 || len(probs) == 0 {
			t.Fatalf("%s: not detected (exit %d): %v", c.name, code, g)
		}
		first := probs[0].(map[string]any)
		if hStr(first, "kind") != c.kind || num(first, "record") != c.record {
			t.Errorf("%s: first problem %v, want %s of record %s", c.name, first, c.kind, c.record)
		}
		if r := e.run("plugins", "audit", "--strict"); r.code != 1 || !strings.Contains(string(r.out), "the grant log does not verify") {
			t.Errorf("%s: audit --strict\n%v", c.name, r)
		}
	}
	if err := os.WriteFile(logPath, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if g, code := e.verifyLog(); code != 0 {
		t.Fatalf("restored: %v", g)
	}
}
