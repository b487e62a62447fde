package grantlog

import (
	"bytes"
	"os"
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
		err = eachLine(bytes.NewReader(data), func(line []byte, complete bool) error {
			start := offset
			offset += int64(len(line)) + 1
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
