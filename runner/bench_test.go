package runner

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

// The benchmarks come in pairs measured in the same run: the runner
// against the same work without it. bench/runner.sh prints their ratios.

const (
	benchMessages   = 100000 // output messages per op
	benchMsgSize    = 64     // bytes of text per message
	benchRoundTrips = 5000   // request/response pairs per op
)

func benchEnv(b *testing.B) (*testEnv, *Runner) {
	e := newEnv(b)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{})
	r := e.runner()
	r.Stdout = io.Discard
	r.Stderr = io.Discard
	return e, r
}

func runBench(b *testing.B, r *Runner, req Request) {
	b.Helper()
	res, err := r.Run(context.Background(), req)
	if err != nil || res.ExitCode != 0 {
		b.Fatalf("run: %v (exit %d)", err, res.ExitCode)
	}
}

// BenchmarkOutputRunner: output messages through the runner to stdout.
func BenchmarkOutputRunner(b *testing.B) {
	_, r := benchEnv(b)
	req := Request{Command: "go", Args: []string{"flood", strconv.Itoa(benchMessages), strconv.Itoa(benchMsgSize)}}
	b.SetBytes(int64(benchMessages * benchMsgSize))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runBench(b, r, req)
	}
	b.ReportMetric(float64(benchMessages)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkOutputRawPipe: the same message bytes through a plain pipe.
func BenchmarkOutputRawPipe(b *testing.B) {
	b.SetBytes(int64(benchMessages * benchMsgSize))
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(goPlugin, "rawflood", strconv.Itoa(benchMessages), strconv.Itoa(benchMsgSize))
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, out); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchMessages)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkRoundTripRunner: request/response pairs through the runner.
func BenchmarkRoundTripRunner(b *testing.B) {
	_, r := benchEnv(b)
	req := Request{Command: "go", Args: []string{"ping", strconv.Itoa(benchRoundTrips)}, NonInteractive: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runBench(b, r, req)
	}
	b.ReportMetric(float64(benchRoundTrips)*float64(b.N)/b.Elapsed().Seconds(), "trips/s")
}

// BenchmarkRoundTripRaw: the same number of JSON line ping-pongs with the
// same plugin binary over plain pipes, no protocol host.
func BenchmarkRoundTripRaw(b *testing.B) {
	ping := []byte(`{"type":"confirm","id":"1","message":"ok?","default":true}` + "\n")
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(goPlugin, "rawpong")
		in, _ := cmd.StdinPipe()
		outPipe, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		out := bufio.NewReader(outPipe)
		for j := 0; j < benchRoundTrips; j++ {
			if _, err := in.Write(ping); err != nil {
				b.Fatal(err)
			}
			if _, err := out.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
		in.Close()
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRoundTrips)*float64(b.N)/b.Elapsed().Seconds(), "trips/s")
}

// BenchmarkRoundTripFloor: the runner benchmark's plugin and requests
// (goplugin ping, which encodes and decodes each message with
// encoding/json and maps) against a host that does no protocol work: it
// finds each request's id by searching for it and writes back a fixed
// answer. No host can answer faster than this, so it shows how much of the
// gap to the raw ping-pong is the plugin's own work. Not a baseline for a
// ratio; bench/runner.sh prints it as context.
func BenchmarkRoundTripFloor(b *testing.B) {
	init := []byte(`{"type":"init","protocol":"fledge-v1","command":"go","args":["ping"]}` + "\n")
	idKey := []byte(`"id":"`)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(goPlugin, "ping", strconv.Itoa(benchRoundTrips))
		in, _ := cmd.StdinPipe()
		outPipe, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		out := bufio.NewReaderSize(outPipe, 64<<10)
		if _, err := in.Write(init); err != nil {
			b.Fatal(err)
		}
		const head = `{"type":"response","id":"`
		var answer []byte
		trips := 0
		for {
			line, err := out.ReadSlice('\n')
			if err != nil {
				break
			}
			k := bytes.Index(line, idKey)
			if k < 0 {
				continue // the final output line
			}
			id := line[k+len(idKey):]
			id = id[:bytes.IndexByte(id, '"')]
			answer = append(append(append(answer[:0], head...), id...), `","value":true}`+"\n"...)
			if _, err := in.Write(answer); err != nil {
				b.Fatal(err)
			}
			trips++
		}
		in.Close()
		if err := cmd.Wait(); err != nil || trips != benchRoundTrips {
			b.Fatalf("floor: %d trips, %v", trips, err)
		}
	}
	b.ReportMetric(float64(benchRoundTrips)*float64(b.N)/b.Elapsed().Seconds(), "trips/s")
}

// BenchmarkStartupRunner: resolve, spawn, init, one output, exit.
func BenchmarkStartupRunner(b *testing.B) {
	_, r := benchEnv(b)
	req := Request{Command: "go", Args: []string{"exit", "0"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runBench(b, r, req)
	}
}

// BenchmarkStartupDirect: exec the same plugin directly, handing it an
// init line, with the same work.
func BenchmarkStartupDirect(b *testing.B) {
	init := `{"type":"init","protocol":"fledge-v1","command":"go","args":["exit","0"]}` + "\n"
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(goPlugin, "exit", "0")
		cmd.Stdin = strings.NewReader(init)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
