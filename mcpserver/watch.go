package mcpserver

import (
	"context"
	"encoding/hex"
	"slices"
	"time"

	"github.com/corvidlabs/fledge-go/internal/derived"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// startWatch polls the catalog's files until ctx ends and reloads the
// catalog when their content changes (an install, update, grant, remove,
// a live link's edited plugin.toml, a new trusted org). Polling content
// rather than watching events costs one hash of a few files a second and
// needs no dependency; it sees every change however it was made, and a
// drop-in added to the policy's policy.d (its directory is listed again).
func (s *Server) startWatch(ctx context.Context) {
	s.watchStart.Do(func() {
		go func() {
			t := time.NewTicker(s.opts.Poll)
			defer t.Stop()
			failed := ""
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				s.mu.Lock()
				inputs, digest := s.inputs, s.digest
				s.mu.Unlock()
				// A drop-in added to policy.d since the last load is a
				// file the inputs do not name yet: listing the settings'
				// files again finds it (a removed one reads as changed).
				if digestFiles(inputs) == digest && names(inputs, s.opts.Settings.Files()) {
					continue
				}
				if err := s.Reload(); err != nil {
					if msg := err.Error(); msg != failed {
						failed = msg
						s.log.printf("warning: the tool list was not updated: %s\n", termsafe.EscapeText(msg))
					}
					continue
				}
				failed = ""
			}
		}()
	})
}

// names reports whether inputs names every file in files.
func names(inputs, files []string) bool {
	for _, f := range files {
		if !slices.Contains(inputs, f) {
			return false
		}
	}
	return true
}

// digestFiles digests the contents of the files at paths, in order; "" when
// one cannot be read (so the next poll tries again).
func digestFiles(paths []string) string {
	var all []byte
	for _, p := range paths {
		d, ok := derived.DigestFile(p, lockfile.MaxSize)
		if !ok {
			return ""
		}
		all = append(all, d[:]...)
	}
	sum := derived.Sum(all)
	return hex.EncodeToString(sum[:])
}
