package grantlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/corvidlabs/fledge-go/lockfile"
)

// Problem kinds, as Verify reports them.
const (
	ProblemEdited     = "edited"     // a record's bytes changed
	ProblemRemoved    = "removed"    // records are missing
	ProblemReordered  = "reordered"  // a record is out of turn
	ProblemReplaced   = "replaced"   // a record chains to a different one
	ProblemTruncated  = "truncated"  // the log ends before its anchor
	ProblemUnanchored = "unanchored" // plugins.toml does not anchor the log
	ProblemBreak      = "break"      // a record says the log was altered before it
	ProblemUnrecorded = "unrecorded" // plugins hold grants the log has no record of
)

// Problem is one thing wrong with the log.
type Problem struct {
	Kind string
	// Line is the line (from 1) where it was found, 0 for the log as a
	// whole; Record the sequence number concerned, 0 when unknown.
	Line   int
	Record int64
	// Message says what was found, naming the record.
	Message string
}

// Report is what Verify found.
type Report struct {
	// Records counts the committed records read; Pending those past the
	// anchor (a change that never landed, which the next change discards).
	Records, Pending int
	// Anchored says plugins.toml holds an anchor for the log.
	Anchored bool
	Problems []Problem
}

// OK reports whether nothing is wrong.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Verify checks the log at path against plugins.toml's anchor. A missing
// log is an empty one.
func Verify(path string, anchor *lockfile.LogAnchor) (*Report, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return VerifyReader(bytes.NewReader(nil), anchor)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("grant log %s is not a regular file", path)
	}
	return VerifyReader(f, anchor)
}

// VerifyFile is Verify against file's anchor, which also reports grants
// with no record: installed plugins in file that hold capabilities or
// approved hooks while the log, unanchored, holds no record at all. An
// emptied log with its anchor removed would otherwise read as an empty,
// intact one.
func VerifyFile(path string, file *lockfile.File) (*Report, error) {
	rep, err := Verify(path, file.GrantLog)
	if err != nil || rep.Anchored || rep.Records > 0 || rep.Pending > 0 || !rep.OK() {
		return rep, err
	}
	var granted []string
	for _, p := range file.Plugins {
		if !p.Capabilities.IsZero() || len(p.Hooks) > 0 {
			granted = append(granted, p.Name)
		}
	}
	if len(granted) > 0 {
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemUnrecorded, Message: fmt.Sprintf(
			"%d installed plugin(s) hold grants (%s), but the log holds no record of any grant and plugins.toml no anchor: "+
				"the log was emptied and its anchor removed, or the grants were made by a fledge that keeps no log (such as the Rust fledge)",
			len(granted), strings.Join(granted, ", "))})
	}
	return rep, nil
}

// VerifyReader checks a log read from r against anchor.
func VerifyReader(r io.Reader, anchor *lockfile.LogAnchor) (*Report, error) {
	rep := &Report{Anchored: anchor != nil}
	add := func(kind string, line int, seq int64, format string, a ...any) {
		rep.Problems = append(rep.Problems, Problem{Kind: kind, Line: line, Record: seq, Message: fmt.Sprintf(format, a...)})
	}
	var (
		offset   int64
		lastEnd  int64 // where the last committed record ends
		lastSeq  int64
		lastHash string
		lineNo   int
		maxSeq   int64
		// hashes maps each record read to its hash, for the chain; gaps
		// are numbers missing so far, which a later line may hold (then
		// the log was reordered rather than cut).
		hashes = map[int64]string{}
		gaps   []gap
	)
	err := eachLine(r, func(line []byte, n int64, complete bool) error {
		lineNo++
		start := offset
		offset += n
		if complete {
			offset++
		}
		if anchor != nil && start >= anchor.Size {
			rep.Pending++
			return nil
		}
		if !complete {
			add(ProblemEdited, lineNo, 0, "line %d is cut short: the log was truncated or edited in the middle of a record", lineNo)
			return nil
		}
		rec, err := decode(line)
		if err != nil {
			add(ProblemEdited, lineNo, maxSeq+1, "line %d (record %d, by position) was edited: it is not a record fledge wrote (%v)", lineNo, maxSeq+1, err)
			maxSeq++
			lastEnd, lastSeq, lastHash = offset, maxSeq, ""
			return nil
		}
		rep.Records++
		if canon, err := encode(&rec); err != nil || !bytes.Equal(canon, line) {
			add(ProblemEdited, lineNo, rec.Seq, "record %d (line %d) was edited: its bytes are not what fledge wrote", rec.Seq, lineNo)
		} else if h, err := hashOf(rec); err != nil || h != rec.Hash {
			add(ProblemEdited, lineNo, rec.Seq, "record %d (line %d) was edited: its contents do not match its hash", rec.Seq, lineNo)
		}
		switch {
		case rec.Seq > maxSeq+1:
			gaps = append(gaps, gap{from: maxSeq + 1, to: rec.Seq - 1, problem: len(rep.Problems)})
			add(ProblemRemoved, lineNo, rec.Seq, "%s missing before record %d (line %d): removed", span(maxSeq+1, rec.Seq-1), rec.Seq, lineNo)
		case rec.Seq <= maxSeq:
			if g := findGap(gaps, rec.Seq); g != nil && g.from == g.to {
				p := &rep.Problems[g.problem]
				p.Kind, p.Record, p.Line = ProblemReordered, rec.Seq, lineNo
				p.Message = fmt.Sprintf("record %d is out of order: it is on line %d, after record %d: the log was reordered", rec.Seq, lineNo, maxSeq)
			} else if g != nil {
				add(ProblemReordered, lineNo, rec.Seq, "record %d is out of order: it is on line %d, after record %d: the log was reordered", rec.Seq, lineNo, maxSeq)
			} else {
				add(ProblemReordered, lineNo, rec.Seq, "record %d (line %d) comes again after record %d: a record was repeated", rec.Seq, lineNo, maxSeq)
			}
		}
		if h, ok := hashes[rec.Seq-1]; ok && rec.Prev != h {
			add(ProblemReplaced, lineNo, rec.Seq-1, "record %d (line %d) does not chain to record %d before it: record %d was replaced, or record %d's link edited", rec.Seq, lineNo, rec.Seq-1, rec.Seq-1, rec.Seq)
		} else if rec.Seq == 1 && rec.Prev != "" {
			add(ProblemRemoved, lineNo, rec.Seq, "record 1 (line %d) chains to an earlier record: the log's beginning was removed or replaced", lineNo)
		}
		if rec.LogBreak != "" {
			add(ProblemBreak, lineNo, rec.Seq, "record %d (line %d) found the log altered before it: %s", rec.Seq, lineNo, rec.LogBreak)
		}
		if _, dup := hashes[rec.Seq]; !dup {
			hashes[rec.Seq] = rec.Hash
		}
		maxSeq = max(maxSeq, rec.Seq)
		lastEnd, lastSeq, lastHash = offset, rec.Seq, rec.Hash
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case anchor == nil:
		if lastSeq > 0 {
			add(ProblemUnanchored, 0, 0, "plugins.toml holds no anchor for the log, so records removed from its end would go unnoticed (another program, such as the Rust fledge, rewrote plugins.toml; the next change anchors it again)")
		}
	case lastEnd < anchor.Size && offset < anchor.Size:
		add(ProblemTruncated, 0, lastSeq+1, "the log ends after record %d, but plugins.toml's anchor expects %d records: %s removed from the end", lastSeq, anchor.Records, span(lastSeq+1, anchor.Records))
	case lastEnd != anchor.Size:
		add(ProblemEdited, 0, lastSeq, "plugins.toml's anchor expects the log to end its last committed record at byte %d, but it ends at byte %d: records were edited or removed", anchor.Size, lastEnd)
	case lastSeq != anchor.Records || lastHash != anchor.Head:
		add(ProblemReplaced, 0, lastSeq, "the last record is record %d (%s), but plugins.toml's anchor names record %d (%s): it was replaced", lastSeq, lastHash, anchor.Records, anchor.Head)
	}
	return rep, nil
}

// gap is a run of record numbers missing where they were expected.
type gap struct {
	from, to int64
	problem  int // its problem in Report.Problems
}

func findGap(gs []gap, seq int64) *gap {
	for i := range gs {
		if seq >= gs[i].from && seq <= gs[i].to {
			return &gs[i]
		}
	}
	return nil
}

func span(from, to int64) string {
	if from == to {
		return fmt.Sprintf("record %d is", from)
	}
	return fmt.Sprintf("records %d to %d are", from, to)
}

// eachLine calls fn with every line of r (without its newline) and the
// line's length in r; complete is false for a last line that has none. A
// line longer than MaxRecord is passed as its first MaxRecord+1 bytes, so
// it is never taken for a record, while n still counts all of it: offsets
// after it stay those of the file.
func eachLine(r io.Reader, fn func(line []byte, n int64, complete bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	var n int64
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if room := MaxRecord + 1 - len(buf); room > 0 {
			buf = append(buf, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case err == nil:
			if ferr := fn(bytes.TrimSuffix(buf, []byte("\n")), n-1, true); ferr != nil {
				return ferr
			}
			buf, n = buf[:0], 0
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if n > 0 {
				return fn(buf, n, false)
			}
			return nil
		default:
			return err
		}
	}
}

// Read calls fn with every committed record in order: those up to the
// anchor (all, without one). Lines that are not records are skipped and
// counted in bad; Verify says what is wrong with them.
func Read(path string, anchor *lockfile.LogAnchor, fn func(Record) error) (bad int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("grant log %s is not a regular file", path)
	}
	var offset int64
	err = eachLine(f, func(line []byte, n int64, complete bool) error {
		start := offset
		offset += n + 1
		if anchor != nil && start >= anchor.Size {
			return nil
		}
		rec, err := decode(line)
		if !complete || err != nil {
			bad++
			return nil
		}
		return fn(rec)
	})
	return bad, err
}
