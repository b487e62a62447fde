package runner

import (
	"bytes"
	"os"
	"testing"
)

// fledgeV1Lines are the protocol's real messages, both ways, as the
// fledge-v1 reference shows them (../shared/seeds/001, one per line): seeds
// that start the fuzzers from every message type rather than from scratch.
func fledgeV1Lines(f *testing.F) []string {
	f.Helper()
	data, err := os.ReadFile("testdata/fledge-v1.ndjson")
	if err != nil {
		f.Fatal(err)
	}
	var lines []string
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		lines = append(lines, string(l))
	}
	return lines
}
