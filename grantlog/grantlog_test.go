package grantlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// machine is a FLEDGE_HOME with a plugins.toml and a log, changed only
// through Transact as fledge changes them.
type machine struct {
	t     testing.TB
	store *lockfile.Store
	log   *Log
	n     int
}

func newMachine(t testing.TB) *machine {
	dir := t.TempDir()
	clock := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	m := &machine{t: t, store: lockfile.NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, ".lock"))}
	m.log = &Log{Path: filepath.Join(dir, "grants.log"),
		Now: func() time.Time { clock = clock.Add(time.Second); return clock },
		Who: func() (string, int) { return "alice", 1000 }}
	return m
}

// change installs (or regrants) a plugin and logs it.
func (m *machine) change(action string) {
	m.t.Helper()
	m.n++
	name := "p" + string(rune('a'+m.n%26))
	err := m.store.Transact(func(f *lockfile.File) error {
		f.Put(lockfile.Plugin{Name: name, Version: "1.0.0", Capabilities: manifest.Capabilities{Store: m.n%2 == 0}})
		return nil
	}, func(f *lockfile.File, before []byte) error {
		return m.log.Append(f, before, Record{Action: action, Plugin: name, Granted: []string{"store"},
			Consent: map[string]string{"store": ConsentYes}, Capabilities: manifest.Capabilities{Store: true},
			Hooks: map[string]string{"build": "make <all> & \"quoted\""}})
	})
	if err != nil {
		m.t.Fatal(err)
	}
}

func (m *machine) anchor() *lockfile.LogAnchor {
	m.t.Helper()
	f, err := m.store.Load()
	if err != nil {
		m.t.Fatal(err)
	}
	return f.GrantLog
}

func (m *machine) verify() *Report {
	m.t.Helper()
	rep, err := Verify(m.log.Path, m.anchor())
	if err != nil {
		m.t.Fatal(err)
	}
	return rep
}

func (m *machine) records() []Record {
	m.t.Helper()
	var out []Record
	if _, err := Read(m.log.Path, m.anchor(), func(r Record) error { out = append(out, r); return nil }); err != nil {
		m.t.Fatal(err)
	}
	return out
}

func TestAppendChains(t *testing.T) {
	m := newMachine(t)
	for range 5 {
		m.change(ActionInstall)
	}
	rep := m.verify()
	if !rep.OK() || rep.Records != 5 || !rep.Anchored {
		t.Fatalf("%+v", rep)
	}
	recs := m.records()
	if len(recs) != 5 || recs[0].Prev != "" || recs[4].Seq != 5 || recs[1].Prev != recs[0].Hash || recs[0].User != "alice" || recs[0].UID != 1000 {
		t.Fatalf("%+v", recs)
	}
	if a := m.anchor(); a.Records != 5 || a.Head != recs[4].Hash {
		t.Fatalf("anchor %+v", a)
	}
	if recs[0].StateBefore != "" || recs[1].StateBefore == "" {
		t.Errorf("state_before: %q %q", recs[0].StateBefore, recs[1].StateBefore)
	}
}

// Every byte of every record matters: changing any one is detected, and
// the problem names the record it is in (or the log's end, for the last).
func TestVerifyDetectsEveryByte(t *testing.T) {
	m := newMachine(t)
	for range 3 {
		m.change(ActionGrant)
	}
	orig, err := os.ReadFile(m.log.Path)
	if err != nil {
		t.Fatal(err)
	}
	anchor := m.anchor()
	lineOf := func(i int) int { return bytes.Count(orig[:i], []byte("\n")) + 1 }
	for i := range orig {
		for _, b := range []byte{orig[i] ^ 0x01, ' ', '\n', '"'} {
			if b == orig[i] {
				continue
			}
			edited := bytes.Clone(orig)
			edited[i] = b
			rep, err := VerifyReader(bytes.NewReader(edited), anchor)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() {
				t.Fatalf("byte %d (%q → %q) edited, verify found nothing", i, orig[i], b)
			}
			if orig[i] == '\n' {
				continue // joining two lines is named by either of them
			}
			named := false
			for _, p := range rep.Problems {
				if p.Line == lineOf(i) || p.Record == int64(lineOf(i)) || (p.Line == lineOf(i)+1 && p.Record == int64(lineOf(i))) {
					named = true
				}
			}
			if !named {
				t.Fatalf("byte %d of line %d edited: no problem names it: %+v", i, lineOf(i), rep.Problems)
			}
		}
	}
}

func TestVerifyNamesRemovedAndReordered(t *testing.T) {
	m := newMachine(t)
	for range 4 {
		m.change(ActionGrant)
	}
	data, _ := os.ReadFile(m.log.Path)
	lines := strings.SplitAfter(string(data), "\n")[:4]
	anchor := m.anchor()
	check := func(name string, log []string, kind string, record int64) {
		t.Helper()
		rep, err := VerifyReader(strings.NewReader(strings.Join(log, "")), anchor)
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK() {
			t.Fatalf("%s: not detected", name)
		}
		p := rep.Problems[0]
		if p.Kind != kind || p.Record != record {
			t.Errorf("%s: first problem %+v, want %s of record %d", name, p, kind, record)
		}
	}
	check("second removed", []string{lines[0], lines[2], lines[3]}, ProblemRemoved, 3)
	check("first removed", lines[1:], ProblemRemoved, 2)
	check("last removed", lines[:3], ProblemTruncated, 4)
	check("swapped", []string{lines[0], lines[2], lines[1], lines[3]}, ProblemReordered, 2)
	rep, _ := VerifyReader(strings.NewReader(lines[0]+lines[2]+lines[1]+lines[3]), anchor)
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "record 2 is out of order: it is on line 3, after record 3") {
		t.Errorf("swap: %+v", rep.Problems)
	}
	check("moved to the end", []string{lines[0], lines[2], lines[3], lines[1]}, ProblemReordered, 2)
	check("duplicated", []string{lines[0], lines[1], lines[1], lines[2], lines[3]}, ProblemReordered, 2)
}

// A change whose record was appended but whose plugins.toml never landed
// (a crash between the two) is not shown, and the next change discards it.
func TestUnlandedRecordIsDiscarded(t *testing.T) {
	m := newMachine(t)
	m.change(ActionInstall)
	m.change(ActionGrant)
	before := m.anchor()
	// The crash: the record is written, plugins.toml is not.
	err := m.store.Transact(func(f *lockfile.File) error { return nil }, func(f *lockfile.File, b []byte) error {
		if err := m.log.Append(f, b, Record{Action: ActionRevoke, Plugin: "pa"}); err != nil {
			return err
		}
		return os.ErrClosed // plugins.toml is not written
	})
	if err == nil {
		t.Fatal("the transaction did not fail")
	}
	if m.anchor().Records != before.Records {
		t.Fatal("plugins.toml changed")
	}
	rep := m.verify()
	if !rep.OK() || rep.Records != 2 || rep.Pending != 1 || len(m.records()) != 2 {
		t.Fatalf("after the crash: %+v", rep)
	}
	// And a half-written line after that.
	f, _ := os.OpenFile(m.log.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":4,"time":`)
	f.Close()
	if rep := m.verify(); !rep.OK() || rep.Pending != 2 {
		t.Fatalf("with a partial line: %+v", rep)
	}
	m.change(ActionGrant)
	rep = m.verify()
	recs := m.records()
	if !rep.OK() || rep.Records != 3 || rep.Pending != 0 || recs[2].Seq != 3 || recs[2].LogBreak != "" {
		t.Fatalf("after the next change: %+v %+v", rep, recs)
	}
}

// Without an anchor (a crash in the very first change), the record is
// discarded when plugins.toml is still what it was written against.
func TestFirstChangeCrash(t *testing.T) {
	m := newMachine(t)
	err := m.store.Transact(func(f *lockfile.File) error { return nil }, func(f *lockfile.File, b []byte) error {
		m.log.Append(f, b, Record{Action: ActionInstall, Plugin: "px"})
		return os.ErrClosed
	})
	if err == nil {
		t.Fatal("no crash")
	}
	m.change(ActionInstall)
	recs := m.records()
	if len(recs) != 1 || recs[0].Plugin == "px" || recs[0].LogBreak != "" || !m.verify().OK() {
		t.Fatalf("%+v %+v", recs, m.verify())
	}
}

// Tampering is evidence that survives the next change: the next record
// says what it found.
func TestTamperingStaysInTheChain(t *testing.T) {
	m := newMachine(t)
	for range 3 {
		m.change(ActionGrant)
	}
	data, _ := os.ReadFile(m.log.Path)
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(m.log.Path, []byte(lines[0]+lines[1]), 0o644) // the last record removed
	if rep := m.verify(); rep.OK() || rep.Problems[0].Kind != ProblemTruncated {
		t.Fatalf("%+v", rep)
	}
	m.change(ActionGrant)
	rep := m.verify()
	if rep.OK() || rep.Problems[0].Kind != ProblemBreak || rep.Problems[0].Record != 3 || !strings.Contains(rep.Problems[0].Message, "anchor names record 3") {
		t.Fatalf("%+v", rep)
	}
	// Plugins.toml rewritten by another program (no anchor): noted too.
	f, _ := m.store.Load()
	f.GrantLog = nil
	out, _ := lockfile.Marshal(f)
	os.WriteFile(m.store.Path(), out, 0o644)
	if rep := m.verify(); rep.Problems[len(rep.Problems)-1].Kind != ProblemUnanchored {
		t.Fatalf("%+v", rep)
	}
	m.change(ActionGrant)
	recs := m.records()
	if last := recs[len(recs)-1]; !strings.Contains(last.LogBreak, "no anchor") || last.Seq != 4 {
		t.Fatalf("%+v", last)
	}
}

func TestRecordsAreBounded(t *testing.T) {
	m := newMachine(t)
	err := m.store.Transact(func(f *lockfile.File) error { return nil }, func(f *lockfile.File, b []byte) error {
		return m.log.Append(f, b, Record{Action: ActionInstall, Plugin: "big", Note: strings.Repeat("x", MaxRecord)})
	})
	if err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("a huge record: %v", err)
	}
	if _, err := os.Stat(m.store.Path()); err == nil {
		t.Error("plugins.toml written after the log refused its record")
	}
}

// A line longer than a record (junk someone wrote into the log) is one
// bad line, and what follows it keeps its place in the file: a record
// past the anchor is still pending, not committed.
func TestOverlongLineKeepsOffsets(t *testing.T) {
	m := newMachine(t)
	m.change(ActionGrant)
	m.change(ActionGrant)
	anchor := *m.anchor()
	m.change(ActionGrant) // on disk, but beyond the anchor taken before it
	data, err := os.ReadFile(m.log.Path)
	if err != nil {
		t.Fatal(err)
	}
	// Chunks of the junk line are cut at bufio's 64 KiB and at MaxRecord;
	// an odd size leaves a last piece that would fit after the cut.
	junk := strings.Repeat("x", 2*MaxRecord+12345) + "\n"
	if err := os.WriteFile(m.log.Path, append([]byte(junk), data...), 0o600); err != nil {
		t.Fatal(err)
	}
	anchor.Size += int64(len(junk))
	var seqs []int64
	bad, err := Read(m.log.Path, &anchor, func(r Record) error { seqs = append(seqs, r.Seq); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if bad != 1 || len(seqs) != 2 || seqs[0] != 1 || seqs[1] != 2 {
		t.Errorf("Read: bad %d, records %v; want 1 bad line and records [1 2]", bad, seqs)
	}
	rep, err := VerifyReader(bytes.NewReader(append([]byte(junk), data...)), &anchor)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pending != 1 || rep.Records != 2 {
		t.Errorf("Verify: %d records, %d pending; want 2 and 1 (%+v)", rep.Records, rep.Pending, rep.Problems)
	}
}

// An emptied log with its anchor removed, while plugins hold grants, is
// not "0 records, chain intact": the grants have no record.
func TestVerifyFileNamesUnrecordedGrants(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	m.change("install")
	m.change("install") // the second plugin is granted store
	f, err := m.store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := VerifyFile(m.log.Path, f); err != nil || !rep.OK() {
		t.Fatalf("an untouched log: %+v %v", rep, err)
	}
	// Empty the log and remove the anchor.
	if err := os.WriteFile(m.log.Path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f.GrantLog = nil
	rep, err := VerifyFile(m.log.Path, f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || len(rep.Problems) != 1 || rep.Problems[0].Kind != ProblemUnrecorded || !strings.Contains(rep.Problems[0].Message, "1 installed plugin(s) hold grants (pc)") {
		t.Fatalf("want the unrecorded grants named, got %+v", rep.Problems)
	}
	// Without grants, an empty log is simply empty.
	for i := range f.Plugins {
		f.Plugins[i].Capabilities = manifest.Capabilities{}
	}
	if rep, err := VerifyFile(m.log.Path, f); err != nil || !rep.OK() {
		t.Fatalf("an empty log without grants: %+v %v", rep.Problems, err)
	}
}
