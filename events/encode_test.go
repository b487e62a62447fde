package events

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// encodingJSON is what the hand-written encoder must write: encoding/json
// with HTML escaping off.
func encodingJSON(t *testing.T, e *Event) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func FuzzEncodingMatchesJSON(f *testing.F) {
	f.Add("run", "fledge-plugin-hello", "0123abc", "hello", "user", "me", 1000, "", "", "", "ok", "", 0, true, int64(3),
		"exec", "", "", "not granted", true, "e3b0", "/etc/fledge/policy.toml", "kernel: the project (read-write)", int64(1764262800123456789))
	f.Add("tool_call", "p\x00<&>\u2028\xff", "", "a\"b\\c\n\t", "mcp", "", -1, "cli", "1.0", "sess", "failed", "timeout", 137, false, int64(-1),
		"", "r", "/f", "", false, "", "", "", int64(0))
	f.Fuzz(func(t *testing.T, kind, plugin, commit, command, akind, user string, uid int, client, cver, session, outcome, code string,
		exit int, started bool, dur int64, item, rule, file, reason string, withPolicy bool, pid, pfile, conf string, nanos int64) {
		e := Event{Time: time.Unix(0, nanos).UTC(), Kind: kind, Plugin: plugin, Commit: commit, Command: command,
			Actor:   Actor{Kind: akind, User: user, UID: uid, Client: client, ClientVersion: cver, Session: session},
			Outcome: outcome, Code: code, DurationMS: dur, Confinement: conf}
		if started {
			e.ExitCode = &exit
		}
		if item != "" {
			e.Denials = []Denial{{Item: item, Rule: rule, File: file, Reason: reason}, {Item: reason}}
		} else if rule != "" {
			e.Denials = []Denial{}
		}
		if withPolicy {
			e.Policy = &Policy{ID: pid}
			if pfile != "" {
				e.Policy.Files = []string{pfile, rule}
			}
		}
		got, err := e.appendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := encodingJSON(t, &e); !bytes.Equal(got, want) {
			t.Fatalf("appendJSON wrote\n%s\nencoding/json\n%s", got, want)
		}
	})
}

// A time encoding/json cannot write (a year past 9999) is an error here
// too, not a line no reader takes.
func TestEncodingRefusesWhatJSONRefuses(t *testing.T) {
	e := Event{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := json.Marshal(e); err == nil {
		t.Fatal("encoding/json took a year past 9999")
	}
	if _, err := e.appendJSON(nil); err == nil {
		t.Fatal("appendJSON took a year past 9999")
	}
	if err := New(t.TempDir() + "/events.jsonl").Append(e); err == nil {
		t.Fatal("Append wrote an event encoding/json refuses")
	}
}
