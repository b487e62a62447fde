package gitstate

import (
	"bytes"
	"testing"
)

// FuzzGitOutput: the readers of git's output never panic, and agree with
// a plain reading of the records.
func FuzzGitOutput(f *testing.F) {
	f.Add([]byte("160000 538e0bdbf37cb6274d95aee0e7ec007cb414bcf5 0\tinner\x00100644 718f4d2ff533cf8ead8d3556cf43912bd245fbc4 0\tt.txt\x00"))
	f.Add([]byte("# branch.oid (initial)\x00# branch.head main\x00? new.txt\x00"))
	f.Add([]byte("# branch.head main\x00"))
	f.Fuzz(func(t *testing.T, out []byte) {
		for _, p := range gitlinks(out) {
			if !bytes.Contains(out, []byte("\t"+p)) {
				t.Fatalf("gitlink %q is not in the output", p)
			}
		}
		want := false
		recs := bytes.Split(out, []byte{0})
		for _, r := range recs[:len(recs)-1] { // the last is unterminated
			if len(r) > 0 && r[0] != '#' {
				want = true
			}
		}
		if got := hasEntry(out); got != want {
			t.Fatalf("hasEntry(%q) = %v, want %v", out, got, want)
		}
	})
}
