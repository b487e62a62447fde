package gitdirty

import (
	"errors"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// pattern is one ignore rule, parsed by go-git with the directory it
// applies below (its domain).
type pattern = gitignore.Pattern

// maxIgnoreFile bounds one ignore file. git itself refuses ignore files
// over 100 MiB; real ones are a few KiB, and this one is read on every run.
const maxIgnoreFile = 4 << 20

// readPatterns reads an ignore file (.gitignore, info/exclude or
// core.excludesFile) whose rules apply below domain. A missing file has no
// rules. A symlinked .gitignore is not followed, as git (2.32 on) does not.
func readPatterns(path string, domain []string) ([]pattern, error) {
	data, err := bounded.ReadFile(path, maxIgnoreFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	domain = append([]string(nil), domain...)
	var ps []pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps, nil
}

// match reports whether path is ignored: the last rule that matches it
// decides, as in git (rules are in ascending priority).
func match(ps []pattern, path []string, isDir bool) bool {
	for i := len(ps) - 1; i >= 0; i-- {
		switch ps[i].Match(path, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}
