//go:build bench

package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/lockfile/lockfiletest"
)

// ---- the run path: processes, page faults, before and after ----

// gitCounter puts a git first on e's PATH that logs each invocation and
// runs the real one; count returns (and forgets) how many ran.
func gitCounter(b *testing.B, e *env) (count func() int) {
	b.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		b.Skip("git is not installed")
	}
	dir := b.TempDir()
	log := filepath.Join(dir, "calls")
	shim := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(shim), 0o755); err != nil {
		b.Fatal(err)
	}
	for i, v := range e.vars {
		if p, ok := strings.CutPrefix(v, "PATH="); ok {
			e.vars[i] = "PATH=" + dir + string(os.PathListSeparator) + p
		}
	}
	return func() int {
		data, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return 0
		}
		if err != nil {
			b.Fatal(err)
		}
		os.Remove(log)
		return strings.Count(string(data), "\n")
	}
}

// BenchmarkGitProcesses: the git processes one `fledge gp exit 0` starts,
// in the clean 5,000-file project and outside any repository, for this
// tree's fledge (procs-in-repo, procs-outside) and, with -base, the other
// revision's (base-procs-in-repo, base-procs-outside).
func BenchmarkGitProcesses(b *testing.B) {
	dir := gitProject(b, 5000)
	e := goEnv(b)
	count := gitCounter(b, e)
	sides := map[string]string{"": fledgeBin}
	if baseFledge != "" {
		sides["base-"] = baseFledge
	}
	for i := 0; i < b.N; i++ {
		for prefix, bin := range sides {
			c := e.cmd(bin, "gp", "exit", "0")
			c.Dir = dir
			run(b, c)
			b.ReportMetric(float64(count()), prefix+"procs-in-repo")
			run(b, e.cmd(bin, "gp", "exit", "0"))
			b.ReportMetric(float64(count()), prefix+"procs-outside")
		}
	}
}

// BenchmarkStartupFaults: the minor page faults of fledge --version
// against the trivial Go program's (faults-version, faults-trivial), and
// with -base the other revision's (faults-base).
func BenchmarkStartupFaults(b *testing.B) {
	e := newEnv(b)
	var v, t, base []float64
	for i := 0; i < b.N; i++ {
		v = append(v, minflt(run(b, e.cmd(fledgeBin, "--version"))))
		t = append(t, minflt(run(b, e.cmd(trivial))))
		if baseFledge != "" {
			base = append(base, minflt(run(b, e.cmd(baseFledge, "--version"))))
		}
	}
	b.ReportMetric(median(v), "faults-version")
	b.ReportMetric(median(t), "faults-trivial")
	if len(base) > 0 {
		b.ReportMetric(median(base), "faults-base")
	}
}

// BenchmarkBefore: the run path's figures for the -base revision's fledge
// and this tree's, run alternately (ms-base, ms-head:
// median wall-clock milliseconds): --version, fledge <command> outside a
// repository and in the 5,000-file project, streaming 1M messages,
// list --json at 1,000 plugins, and fledge mcp's spawn to its first
// initialize response at 100 plugins.
func BenchmarkBefore(b *testing.B) {
	if baseFledge == "" {
		b.Skip("no -base tree: bench/all.sh builds one")
	}
	sides := []side{{name: "base", fledge: baseFledge}, {name: "head", fledge: fledgeBin}}
	project := gitProject(b, 5000)
	cases := []struct {
		name  string
		setup func(b *testing.B) *env
		run   func(b *testing.B, e *env, fledge string)
	}{
		{"version", newEnv, func(b *testing.B, e *env, fledge string) { run(b, e.cmd(fledge, "--version")) }},
		{"command", goEnv, func(b *testing.B, e *env, fledge string) { run(b, e.cmd(fledge, "gp", "exit", "0")) }},
		{"command-in-repo", goEnv, func(b *testing.B, e *env, fledge string) {
			c := e.cmd(fledge, "gp", "exit", "0")
			c.Dir = project
			run(b, c)
		}},
		{"stream-1M", goEnv, func(b *testing.B, e *env, fledge string) {
			run(b, e.cmd(fledge, "gp", "flood", "1000000", "64"))
		}},
		{"list-1000", func(b *testing.B) *env { e := newEnv(b); fakePlugins(b, e, 1000); return e },
			func(b *testing.B, e *env, fledge string) { run(b, e.cmd(fledge, "plugins", "list", "--json")) }},
		{"mcp-100", func(b *testing.B) *env { e := goEnv(b); morePlugins(b, e, 100); return e }, mcpInitialize},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			// A home for each side: the derived files are keyed on the
			// binary, and two binaries sharing one would take turns
			// replacing them.
			envs := map[string]*env{}
			for _, s := range sides {
				envs[s.name] = c.setup(b)
			}
			wall := map[string][]float64{}
			for i := 0; i < b.N; i++ {
				for _, s := range sides {
					start := time.Now()
					c.run(b, envs[s.name], s.fledge)
					wall[s.name] = append(wall[s.name], float64(time.Since(start))/1e6)
				}
			}
			for name, w := range wall {
				b.ReportMetric(median(w), "ms-"+name)
			}
		})
	}
}

// mcpInitialize spawns fledge mcp and waits for its first initialize
// response, as BenchmarkMCPStartup does: for this tree, fledge-core's,
// which is what `fledge mcp connect` has agent hosts start in the split
// build.
func mcpInitialize(b *testing.B, e *env, fledge string) {
	if fledge == fledgeBin {
		fledge = fledgeCore
	}
	c := e.cmd(fledge, "mcp")
	var stderr strings.Builder
	c.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.CommandTransport{Command: c, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		b.Fatalf("%v\n%s", err, stderr.String())
	}
	cs.Close()
}

// morePlugins records plugins 1..n-1 beside gp (lockfiletest entries).
func morePlugins(b *testing.B, e *env, n int) {
	b.Helper()
	err := lockfile.NewStore(e.paths.PluginsFile(), e.paths.PluginsLock()).Update(func(f *lockfile.File) error {
		for i := 1; i < n; i++ {
			f.Put(lockfiletest.Entry(i))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
