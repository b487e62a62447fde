package confine

import (
	"bytes"
	"io"
	"os"
)

// MaxNamedScan bounds how much of a plugin's program NamedIn reads: a
// script is read whole, a compiled binary's start only (it should declare
// what it needs in plugin.toml instead).
const MaxNamedScan = 256 << 10

// NamedIn lists which of names (variable names) the file at path names:
// occurs in its first MaxNamedScan bytes as a whole word (not inside a
// longer name). It is how fledge guesses, for a plugin that declares no
// environment, which withheld variables it may have wanted: the ones its
// own program mentions ("${FIGMA_TOKEN:-}", os.environ["DATABASE_URL"]).
// A file that cannot be read names none.
func NamedIn(path string, names []string) []string {
	if len(names) == 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxNamedScan))
	if err != nil {
		return nil
	}
	return Named(data, names)
}

// Named lists which of names text names as whole words (a hook's
// command, a program's text).
func Named(text []byte, names []string) []string {
	data := text
	var out []string
	for _, n := range names {
		if n != "" && namesWord(data, []byte(n)) {
			out = append(out, n)
		}
	}
	return out
}

// namesWord reports whether word occurs in data with no name character
// on either side.
func namesWord(data, word []byte) bool {
	for off := 0; ; {
		i := bytes.Index(data[off:], word)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(word)
		if (start == 0 || !nameByte(data[start-1])) && (end == len(data) || !nameByte(data[end])) {
			return true
		}
		off = start + 1
	}
}

func nameByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z'
}
