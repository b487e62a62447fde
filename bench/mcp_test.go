//go:build bench

package bench

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ---- what the agent commands cost ----

// fledgeNoMCP is fledge built without the agent commands (by TestMain).
var fledgeNoMCP string

// BenchmarkStartupMCPLinked: fledge --version against the same fledge
// built without the agent commands (tag fledge_nomcp), so without the MCP
// SDK and JSON Schema code and their package initialisation: what linking
// them costs every other command. The two run alternately, so a machine
// whose load drifts slows both alike; each one's median is reported
// (ms-linked, ms-without), a start-up being a few milliseconds whose mean
// a stray slow run moves.
func BenchmarkStartupMCPLinked(b *testing.B) {
	e := newEnv(b)
	var with, without []float64
	for i := 0; i < b.N; i++ {
		for _, bin := range []string{fledgeNoMCP, fledgeBin} {
			start := time.Now()
			run(b, e.cmd(bin, "--version"))
			ms := float64(time.Since(start)) / 1e6
			if bin == fledgeBin {
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
