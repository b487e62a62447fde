//go:build bench

package bench

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/lockfile/lockfiletest"
)

// ---- what the agent commands cost ----

// fledgeNoMCP is fledge built without the agent commands (by TestMain).
var fledgeNoMCP string

// BenchmarkStartupMCPLinked: fledge --version, as one binary
// (fledgeSingle: the split build's fledge links no MCP code at all),
// against the same fledge built without the agent commands (tag
// fledge_nomcp), so without the MCP
// SDK and JSON Schema code and their package initialisation: what linking
// them costs every other command. The two run alternately, so a machine
// whose load drifts slows both alike; each one's median is reported
// (ms-linked, ms-without), a start-up being a few milliseconds whose mean
// a stray slow run moves.
func BenchmarkStartupMCPLinked(b *testing.B) {
	e := newEnv(b)
	var with, without []float64
	for i := 0; i < b.N; i++ {
		for _, bin := range []string{fledgeNoMCP, fledgeSingle} {
			start := time.Now()
			run(b, e.cmd(bin, "--version"))
			ms := float64(time.Since(start)) / 1e6
			if bin == fledgeSingle {
				with = append(with, ms)
			} else {
				without = append(without, ms)
			}
		}
	}
	b.ReportMetric(median(with), "ms-linked")
	b.ReportMetric(median(without), "ms-without")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkPluginsRun: `fledge plugins run gp -- exit 0` from the shell,
// the way a script (or an agent without MCP) calls a command.
func BenchmarkPluginsRun(b *testing.B) {
	e := goEnv(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, e.cmd(fledgeBin, "plugins", "run", "gp", "--", "exit", "0"))
	}
}

// BenchmarkMCPCall: one tools/call round trip of the same command to a
// running `fledge mcp`, over its stdio, from the go-sdk client.
func BenchmarkMCPCall(b *testing.B) {
	e := goEnv(b)
	c := e.cmd(fledgeBin, "mcp")
	var stderr strings.Builder
	c.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.CommandTransport{Command: c, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		b.Fatalf("%v\n%s", err, stderr.String())
	}
	defer cs.Close()
	args := map[string]any{"args": []string{"exit", "0"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "gp", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("call: %v %+v\n%s", err, res, stderr.String())
		}
	}
}

// BenchmarkMCPStartup: spawning `fledge mcp` to its first initialize
// response (from the go-sdk client, over stdio), then one tools/list, with
// 1, 10 and 100 plugins recorded, beside `fledge --version` run
// alternately: the server's start-up against the plainest command
// (ms-initialize, ms-list, ms-version; the ratio is the bar of 2x).
func BenchmarkMCPStartup(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run("plugins="+strconv.Itoa(n), func(b *testing.B) {
			e := goEnv(b)
			err := lockfile.NewStore(e.paths.PluginsFile(), e.paths.PluginsLock()).Update(func(f *lockfile.File) error {
				for i := 1; i < n; i++ {
					f.Put(lockfiletest.Entry(i))
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			var initialize, list, version []float64
			for i := 0; i < b.N; i++ {
				start := time.Now()
				// The target (≤ 2x --version) was set against fledge as
				// one binary. In the split build `fledge mcp connect`
				// (run by fledge-core) writes fledge-core's path into an
				// agent host's configuration, so hosts start fledge-core
				// mcp: that is what is measured.
				run(b, e.cmd(fledgeSingle, "--version"))
				version = append(version, float64(time.Since(start))/1e6)

				c := e.cmd(fledgeCore, "mcp")
				var stderr strings.Builder
				c.Stderr = &stderr
				start = time.Now()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
					&mcp.CommandTransport{Command: c, TerminateDuration: 10 * time.Second}, nil)
				if err != nil {
					b.Fatalf("%v\n%s", err, stderr.String())
				}
				initialize = append(initialize, float64(time.Since(start))/1e6)
				start = time.Now()
				res, err := cs.ListTools(context.Background(), nil)
				if err != nil || len(res.Tools) == 0 {
					b.Fatalf("tools/list: %v\n%s", err, stderr.String())
				}
				list = append(list, float64(time.Since(start))/1e6)
				cs.Close()
			}
			b.ReportMetric(median(initialize), "ms-initialize")
			b.ReportMetric(median(list), "ms-list")
			b.ReportMetric(median(version), "ms-version")
			b.ReportMetric(median(initialize)/median(version), "x-version")
		})
	}
}
