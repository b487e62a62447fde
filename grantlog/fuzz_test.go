package grantlog

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/lockfile"
)

// Verify reads any bytes without panicking, and never calls a log it did
// not find intact OK: a log that verifies holds only records that decode,
// encode back to themselves and chain.
func FuzzVerify(f *testing.F) {
	m := newMachine(f)
	for range 3 {
		m.change(ActionGrant)
	}
	real, err := os.ReadFile(m.log.Path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real, int64(len(real)), true)
	f.Add(real[:len(real)/2], int64(len(real)), true)
	// Every way the verifier names a change, made to the real log: so the
	// fuzzer starts with those paths covered rather than finding (and
	// spending its time minimising) each one.
	lines := strings.SplitAfter(string(real), "\n")[:3]
	for _, v := range []string{
		lines[0] + lines[2],                                                    // a record removed
		lines[1] + lines[2],                                                    // the first removed
		lines[0] + lines[2] + lines[1],                                         // reordered
		lines[0] + lines[1] + lines[1] + lines[2],                              // repeated
		lines[0] + lines[1] + strings.TrimSuffix(lines[2], "\n"),               // cut short
		lines[0] + strings.Replace(lines[1], "alice", "mallory", 1) + lines[2], // edited
		lines[0] + "{}\n" + lines[2],                                           // not a record
	} {
		f.Add([]byte(v), int64(len(real)), true)
		f.Add([]byte(v), int64(len(v)), false)
	}
	f.Add(real, int64(len(lines[0])), true) // records past the anchor: pending
	f.Add([]byte("{}\n"), int64(3), false)
	f.Add([]byte(`{"seq":1}`+"\n"), int64(0), false)
	f.Fuzz(func(t *testing.T, data []byte, size int64, anchored bool) {
		var anchor *lockfile.LogAnchor
		if anchored {
			anchor = &lockfile.LogAnchor{Records: 3, Size: size}
		}
		rep, err := VerifyReader(bytes.NewReader(data), anchor)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() {
			return
		}
		var offset int64
		err = eachLine(bytes.NewReader(data), func(line []byte, n int64, complete bool) error {
			start := offset
			offset += n + 1
			if anchor != nil && start >= anchor.Size {
				return nil
			}
			r, err := decode(line)
			if err != nil || !complete {
				t.Fatalf("verified a log with a line that is not a record: %q", line)
			}
			if enc, _ := encode(&r); !bytes.Equal(enc, line) {
				t.Fatalf("verified a record that is not canonical: %q", line)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
