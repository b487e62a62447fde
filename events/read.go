package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"time"
)

// Filter selects events: newer than Since (zero: all), of Plugin ("":
// all; a plugin's name or its short name).
type Filter struct {
	Since  time.Time
	Plugin string
}

func (f Filter) match(e *Event) bool {
	if !f.Since.IsZero() && e.Time.Before(f.Since) {
		return false
	}
	if f.Plugin != "" && e.Plugin != f.Plugin && strings.TrimPrefix(e.Plugin, "fledge-plugin-") != f.Plugin {
		return false
	}
	return true
}

// Read returns the events of the trail, the rotated copies first (oldest
// to newest), that f selects, and how many lines could not be decoded.
func (l *Log) Read(f Filter) (out []Event, skipped int, err error) {
	out = []Event{}
	files := []string{}
	for n := l.keep(); n >= 1; n-- {
		files = append(files, l.Rotated(n))
	}
	files = append(files, l.Path)
	for _, p := range files {
		fh, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 0, 64<<10), MaxLine+1)
		for sc.Scan() {
			line := sc.Bytes()
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var e Event
			if json.Unmarshal(line, &e) != nil {
				skipped++
				continue
			}
			if f.match(&e) {
				out = append(out, e)
			}
		}
		serr := sc.Err()
		fh.Close()
		if errors.Is(serr, bufio.ErrTooLong) {
			// No writer makes such a line: the file was damaged. What
			// follows in it is not read; it counts as one unreadable.
			skipped++
			continue
		}
		if serr != nil {
			return nil, 0, serr
		}
	}
	return out, skipped, nil
}
