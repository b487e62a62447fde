package confine

import (
	"bytes"
	"io"
	"os"
)

// MaxNamedScan bounds how much of a plugin's program NamedIn reads.
const MaxNamedScan = 256 << 10

// binarySniff is how much of a file NamedIn reads first: one with a NUL
// byte in it is a compiled program (git tells text from binary so), whose
// start holds code rather than the names it reads; it should declare them.
const binarySniff = 8 << 10

// NamedIn lists which of names (variable names) the script at path names:
// occurs in its first MaxNamedScan bytes as a whole word (not inside a
// longer name). It is how fledge guesses, for a plugin that declares no
// environment, which withheld variables it may have wanted: the ones its
// own script mentions ("${FIGMA_TOKEN:-}", os.environ["DATABASE_URL"]).
// A compiled program, or a file that cannot be read, names none.
func NamedIn(path string, names []string) []string {
	if len(names) == 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	buf := make([]byte, min(fi.Size(), MaxNamedScan))
	n, err := io.ReadFull(f, buf[:min(len(buf), binarySniff)])
	if bytes.IndexByte(buf[:n], 0) >= 0 {
		return nil
	}
	if err == nil && n < len(buf) {
		m, _ := io.ReadFull(f, buf[n:])
		n += m
	}
	return Named(buf[:n], names)
}

// Named lists which of names text names as whole words (a hook's
// command, a program's text), in names' order. It reads text once.
func Named(text []byte, names []string) []string {
	want := make(map[string]bool, len(names))
	// A word is looked up only when its length, first and last bytes are
	// those of some name: most words of a program are not.
	var lengths, firsts, lasts [256]bool
	for _, n := range names {
		if n != "" && len(n) < len(lengths) {
			want[n] = true
			lengths[len(n)], firsts[n[0]], lasts[n[len(n)-1]] = true, true, true
		}
	}
	found := map[string]bool{}
	for i := 0; i < len(text); {
		if !nameByte(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && nameByte(text[j]) {
			j++
		}
		if l := j - i; l < len(lengths) && lengths[l] && firsts[text[i]] && lasts[text[j-1]] && want[string(text[i:j])] {
			found[string(text[i:j])] = true
		}
		i = j
	}
	var out []string
	for _, n := range names {
		if found[n] {
			out = append(out, n)
			delete(found, n)
		}
	}
	return out
}

func nameByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z'
}
