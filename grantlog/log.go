package grantlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/corvidlabs/fledge-go/lockfile"
)

// Log is grants.log on disk.
type Log struct {
	Path string
	// Now is the clock records are stamped with (time.Now).
	Now func() time.Time
	// Who names the user making changes (the process's user and uid).
	Who func() (name string, uid int)
}

// New returns the log at path with the real clock and user.
func New(path string) *Log { return &Log{Path: path} }

// AfterAppend, when set, runs after Append has synced its records and
// before plugins.toml is written: the moment a crash tests aim at. fledge
// itself never sets it.
var AfterAppend func()

func (l *Log) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Log) who() (string, int) {
	if l.Who != nil {
		return l.Who()
	}
	return CurrentUser()
}

// CurrentUser is the process's user name (empty when the system cannot say)
// and uid (-1 on Windows).
func CurrentUser() (string, int) {
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return name, os.Getuid()
}

// Append writes recs after the last committed record and points f's anchor
// at the last of them. It must run as the commit step of
// lockfile.Store.Transact, which holds plugins.toml's lock and passes the
// bytes plugins.toml held before the change; f is the file about to be
// written. Records past the anchor (a change that never landed) are
// truncated first; a log that does not match the anchor is kept as it is,
// and the first new record says what was wrong (LogBreak).
func (l *Log) Append(f *lockfile.File, before []byte, recs ...Record) error {
	if len(recs) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o755); err != nil {
		return err
	}
	fh, err := os.OpenFile(l.Path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open grant log: %w", err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("grant log %s is not a regular file", l.Path)
	}
	end, err := findEnd(fh, fi.Size(), f.GrantLog, Digest(before))
	if err != nil {
		return fmt.Errorf("read grant log %s: %w", l.Path, err)
	}
	var buf bytes.Buffer
	prev, seq := end.prev, end.seq
	name, uid := l.who()
	now := l.now()
	for i := range recs {
		r := recs[i]
		r.Seq, r.Time, r.User, r.UID = seq+1, now, name, uid
		r.StateBefore, r.Prev, r.LogBreak = Digest(before), prev, ""
		if i == 0 {
			r.LogBreak = end.brk
		}
		r.normalise()
		if r.Hash, err = hashOf(r); err != nil {
			return err
		}
		line, err := encode(&r)
		if err != nil {
			return err
		}
		if len(line) >= MaxRecord {
			return fmt.Errorf("grant log record for %s is %d bytes, more than %d", r.Plugin, len(line), MaxRecord)
		}
		buf.Write(line)
		buf.WriteByte('\n')
		prev, seq = r.Hash, r.Seq
	}
	if end.at < fi.Size() {
		if err := fh.Truncate(end.at); err != nil {
			return fmt.Errorf("truncate grant log: %w", err)
		}
	}
	if _, err := fh.WriteAt(buf.Bytes(), end.at); err != nil {
		return fmt.Errorf("write grant log: %w", err)
	}
	if err := fh.Sync(); err != nil {
		return fmt.Errorf("sync grant log: %w", err)
	}
	f.GrantLog = &lockfile.LogAnchor{Records: seq, Size: end.at + int64(buf.Len()), Head: prev}
	if AfterAppend != nil {
		AfterAppend()
	}
	return nil
}

// logEnd is where the next record goes and what it chains to.
type logEnd struct {
	at   int64 // offset to write at (the log is truncated to it)
	seq  int64
	prev string
	brk  string // what was wrong, for the next record's LogBreak
}

// findEnd decides where the committed log ends. With an anchor that the
// log agrees with, that is the anchor (anything after it never landed).
// Without one, it is the last complete record, unless that record was
// written against the plugins.toml that is still in place (its change did
// not land). Otherwise the log was altered: the next record chains to the
// last complete one and says what was found.
func findEnd(r io.ReaderAt, size int64, anchor *lockfile.LogAnchor, stateNow string) (logEnd, error) {
	if anchor != nil {
		if anchor.Size == 0 && anchor.Records == 0 && anchor.Head == "" {
			return logEnd{}, nil
		}
		if anchor.Size <= size {
			line, _, ok, err := lineEndingAt(r, anchor.Size)
			if err != nil {
				return logEnd{}, err
			}
			if rec, err := decode(line); ok && err == nil && rec.Hash == anchor.Head && rec.Seq == anchor.Records {
				return logEnd{at: anchor.Size, seq: rec.Seq, prev: rec.Hash}, nil
			}
		}
	}
	complete, err := completeEnd(r, size)
	if err != nil {
		return logEnd{}, err
	}
	last, err := tailRecord(r, complete)
	if err != nil {
		return logEnd{}, err
	}
	if anchor == nil && last != nil && last.err == nil && last.rec.StateBefore == stateNow {
		// Its change never landed: plugins.toml is still the file it was
		// written against.
		complete = last.start
		if last, err = tailRecord(r, complete); err != nil {
			return logEnd{}, err
		}
	}
	e := logEnd{at: complete}
	if last != nil {
		if last.err == nil {
			e.seq, e.prev = last.rec.Seq, last.rec.Hash
		} else {
			// Not a record fledge wrote: chain to its bytes.
			e.prev = Digest(last.line)
		}
	}
	var notes []string
	switch {
	case anchor != nil:
		if last == nil || last.err != nil {
			e.seq = max(e.seq, anchor.Records)
		}
		found := "the log holds no complete record"
		if last != nil && last.err == nil {
			found = fmt.Sprintf("its last complete record is record %d (%s), ending at byte %d", last.rec.Seq, last.rec.Hash, complete)
		} else if last != nil {
			found = fmt.Sprintf("its last complete line, ending at byte %d, is not a record fledge wrote", complete)
		}
		notes = append(notes, fmt.Sprintf("plugins.toml's anchor names record %d (%s) ending at byte %d, but %s", anchor.Records, anchor.Head, anchor.Size, found))
	case last != nil:
		notes = append(notes, "plugins.toml carries no anchor for the log (another program rewrote it, or it is older than the log): the log's end could not be checked")
	}
	if size > complete && len(notes) > 0 {
		notes = append(notes, fmt.Sprintf("%d bytes after it were dropped", size-complete))
	}
	e.brk = strings.Join(notes, "; ")
	return e, nil
}

// tail is the last complete line before some offset.
type tail struct {
	line  []byte
	start int64
	rec   Record
	err   error // why line is not a record
}

// tailRecord reads the line ending at end, or returns nil when end is 0.
func tailRecord(r io.ReaderAt, end int64) (*tail, error) {
	if end == 0 {
		return nil, nil
	}
	line, start, ok, err := lineEndingAt(r, end)
	if err != nil {
		return nil, err
	}
	t := &tail{line: line, start: start}
	if !ok {
		t.err = errors.New("not a line")
		return t, nil
	}
	t.rec, t.err = decode(line)
	return t, nil
}

// completeEnd is the offset just past the last newline before size.
func completeEnd(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 4096)
	for end := size; end > 0; {
		n := min(int64(len(buf)), end)
		if _, err := r.ReadAt(buf[:n], end-n); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// lineEndingAt returns the line that ends (with its newline) at end,
// without the newline, and where it starts. ok is false when the byte
// before end is not a newline or the line is longer than MaxRecord (then
// start is where the bytes read begin).
func lineEndingAt(r io.ReaderAt, end int64) (line []byte, start int64, ok bool, err error) {
	if end <= 0 {
		return nil, 0, false, nil
	}
	n := min(end, MaxRecord+1)
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, end-n); err != nil && err != io.EOF {
		return nil, 0, false, err
	}
	if buf[n-1] != '\n' {
		return buf, end - n, false, nil
	}
	body := buf[:n-1]
	i := bytes.LastIndexByte(body, '\n')
	if i < 0 && end > n {
		return body, end - n, false, nil
	}
	return body[i+1:], end - n + int64(i) + 1, true, nil
}
