package lockfile

import (
	"bytes"
	"encoding/json"
	"os"

	"github.com/corvidlabs/fledge-go/internal/derived"
)

// indexKind names the command index among derived files (v2: the listing
// line first; v3: a disabled plugin's commands are not listed; v4: entries
// in derived's value encoding, not JSON).
const indexKind = "plugins.toml command index v4"

// CommandOwner returns the plugin that provides command, as
// Load followed by File.CommandOwner would, but without decoding the whole
// file when it has not changed since the last lookup: every `fledge
// <command>` needs one entry, and decoding a hundred cost about 2.5 ms.
//
// The index at indexPath (a derived file, keyed on the SHA-256 of
// plugins.toml) holds one line per command, "command<TAB>entry" (an
// indexEntry), in
// the order CommandOwner searches, after a first line "#<TAB>listing" that
// holds what Installed returns, as JSON ('#' starts no command name); a
// lookup digests plugins.toml, finds the
// line and decodes that entry only. Any miss falls back to Load, which
// reports errors exactly as before, and rebuilds the index from what it
// decoded. digestMemo, when not empty, remembers plugins.toml's digest
// (see digest).
func (s *Store) CommandOwner(command, indexPath, digestMemo string) (*Plugin, bool, error) {
	if d, ok := s.digest(digestMemo); ok {
		if body, ok := derived.New(indexPath, indexKind, d).Read(); ok {
			if p, found, ok := lookupIndex(body, command); ok {
				return p, found, nil
			}
		}
	}
	data, err := s.Read()
	if err != nil {
		return nil, false, err
	}
	f, err := s.Decode(data)
	if err != nil {
		return nil, false, err
	}
	// No file, nothing worth indexing (and no home to write into).
	if body, err := buildIndex(f); err == nil && data != nil {
		derived.New(indexPath, indexKind, derived.Sum(data)).Put(body)
	}
	p, found := f.CommandOwner(command)
	return p, found, nil
}

// memoAbove is the size of plugins.toml above which its digest is
// remembered (derived.DigestFileMemo) rather than computed at every
// lookup: reading and hashing the 120 KB of a hundred plugins cost a run
// more than the stat and the read of the memo, which cost a file of a few
// plugins more than hashing it.
const memoAbove = 16 << 10

// digest is plugins.toml's SHA-256, as derived.DigestFile gives it;
// remembered in memo under the file's stamp when the file is larger than
// memoAbove and memo is not empty (home.Paths.PluginsDigestFile, which
// list --json keeps too).
func (s *Store) digest(memo string) (derived.Digest, bool) {
	if memo != "" {
		if fi, err := os.Stat(s.path); err == nil && fi.Size() > memoAbove {
			return digestFileMemo(memo, s.path, MaxSize)
		}
	}
	return derived.DigestFile(s.path, MaxSize)
}

// digestFileMemo is derived.DigestFileMemo (a variable for the tests).
var digestFileMemo = derived.DigestFileMemo

// buildIndex writes f's command index: the listing, then for each command
// the first entry that provides it.
func buildIndex(f *File) ([]byte, error) {
	var b bytes.Buffer
	listing, err := json.Marshal(f.Installed())
	if err != nil {
		return nil, err
	}
	// JSON escapes tabs and newlines: the listing is one line.
	b.WriteString(listingPrefix)
	b.Write(listing)
	b.WriteByte('\n')
	seen := map[string]bool{}
	for i := range f.Plugins {
		var entry []byte
		for _, c := range f.Plugins[i].Commands {
			if seen[c] {
				continue
			}
			seen[c] = true
			if entry == nil {
				var err error
				if entry, err = exactEntry(&f.Plugins[i]); err != nil {
					return nil, err
				}
			}
			// Parse checked every command name: no tab, no newline.
			b.WriteString(c)
			b.WriteByte('\t')
			b.Write(entry)
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

// listingPrefix starts the index's first line.
const listingPrefix = "#\t"

// lookupIndex finds command's line in an index body. ok is false when the
// body cannot be used (the caller then decodes plugins.toml itself).
func lookupIndex(body []byte, command string) (p *Plugin, found, ok bool) {
	if command == "" || bytes.ContainsAny([]byte(command), "\t\n") {
		return nil, false, false
	}
	// The listing line is no command's, whatever the word asked for.
	if rest, ok := bytes.CutPrefix(body, []byte(listingPrefix)); ok {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return nil, false, false
		}
		body = rest[nl+1:]
	}
	prefix := []byte(command + "\t")
	start := 0
	if !bytes.HasPrefix(body, prefix) {
		i := bytes.Index(body, append([]byte("\n"), prefix...))
		if i < 0 {
			return nil, false, true
		}
		start = i + 1
	}
	line := body[start+len(prefix):]
	end := bytes.IndexByte(line, '\n')
	if end < 0 {
		return nil, false, false
	}
	var e indexEntry
	if !derived.DecodeValue(line[:end], &e) {
		return nil, false, false
	}
	e.Plugin.everyone = e.Everyone
	return &e.Plugin, true, true
}

// indexEntry is what the index stores of an entry (in derived's value
// encoding, not JSON: a run decodes one entry, and encoding/json's first
// use costs more than the rest of the lookup; see derived.AppendValue):
// the record, and the switch Parse gives it from the file around it
// (confinement off for every plugin), which the JSON entries lost, so
// every run after the first forgot an unconfine --all.
type indexEntry struct {
	Plugin   Plugin
	Everyone string
}

// exactEntry encodes p, or fails when the encoding would not decode to p
// exactly: the index then is not written, rather than answer otherwise
// than the file.
func exactEntry(p *Plugin) ([]byte, error) {
	e := indexEntry{Plugin: *p, Everyone: p.everyone}
	e.Plugin.everyone = ""
	return derived.AppendValue(nil, &e)
}
