package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/protocol"
)

// FuzzHandle feeds arbitrary lines to the message loop of a plugin with no
// grants and no human: nothing may panic, and a line is answered exactly
// once when it is a request with a usable id, and never otherwise, with the
// id echoed byte for byte.
func FuzzHandle(f *testing.F) {
	for _, seed := range []string{
		`{"type":"output","text":"hi\n"}`,
		`{"type":"prompt","id":"1","message":"name?","default":"x","validate":"integer"}`,
		`{"type":"confirm","id":2,"message":"ok?"}`,
		`{"type":"select","id":"3","options":["a"],"default":"a"}`,
		`{"type":"select","id":"3","options":"a"}`,
		`{"type":"multi_select","id":"4","options":["a","b"],"defaults":[1,7]}`,
		`{"type":"load","id":"5","key":"k"}`,
		`{"type":"store","key":"k","value":"v"}`,
		`{"type":"exec","id":"6","command":"true"}`,
		`{"type":"metadata","id":"7","keys":["env"]}`,
		`{"type":"progress","current":1,"total":0}`,
		`{"type":"log","level":"x","message":"\u001b]0;t\u0007"}`,
		`{"type":"prompt","message":"no id"}`,
		`{"type":"load","id":null}`,
		`{"TYPE":"load","Id":"x"}`,
		`not json`, `[]`, `{}`, `"s"`,
	} {
		f.Add(seed)
	}
	for _, seed := range fledgeV1Lines(f) {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, line string) {
		out, err := os.CreateTemp(dir, "in")
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(out.Name())
		s := &session{
			r:      (&Runner{Stdout: io.Discard, Stderr: io.Discard}).withDefaults(),
			t:      &Target{Entry: lockfile.Plugin{Name: "p"}, Root: filepath.Join(dir, "none")},
			name:   "p",
			ctx:    context.Background(),
			live:   context.Background(),
			denied: map[manifest.Capability]bool{},
			warned: map[string]bool{},
			out:    bufio.NewWriter(io.Discard),
		}
		s.in = newInbox(out, 1<<20)
		s.handle([]byte(line))
		s.in.abort()
		<-s.in.done
		data, _ := os.ReadFile(out.Name())

		var head struct {
			Type string          `json:"type"`
			ID   json.RawMessage `json:"id"`
		}
		want := 0
		if json.Unmarshal([]byte(line), &head) == nil && protocol.IsRequest(head.Type) && validID(head.ID) {
			want = 1
		}
		replies := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		if len(data) == 0 {
			replies = nil
		}
		if len(replies) != want {
			t.Fatalf("%q: %d replies, want %d: %s", line, len(replies), want, data)
		}
		for _, r := range replies {
			var msg struct {
				Type string          `json:"type"`
				ID   json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(r, &msg); err != nil || (msg.Type != "response" && msg.Type != "cancel") {
				t.Fatalf("%q: bad reply %s (%v)", line, r, err)
			}
			if !bytes.Equal(msg.ID, head.ID) {
				t.Fatalf("%q: reply id %s, want %s", line, msg.ID, head.ID)
			}
		}
	})
}
