package events

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkAppend is one event's cost: open, one write, stat, close (and
// the rare rotation). BenchmarkExecTrue is the least any native plugin
// run costs (fork and exec of /bin/true), the baseline the append is
// compared to: run both in one invocation and divide.
func BenchmarkAppend(b *testing.B) {
	l := &Log{Path: filepath.Join(b.TempDir(), "events.jsonl")}
	code := 0
	e := Event{Kind: KindRun, Plugin: "fledge-plugin-hello", Commit: "0123456789abcdef0123456789abcdef01234567", Command: "hello",
		Actor: Actor{Kind: "user", User: "me"}, Outcome: OutcomeOK, ExitCode: &code, DurationMS: 3,
		Policy:      &Policy{ID: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Files: []string{"/etc/fledge/policy.toml"}},
		Confinement: "kernel: the project (read-write)"}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
