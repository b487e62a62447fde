package gitdirty

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// maxConfigFile bounds one git config file read for the settings below.
const maxConfigFile = 1 << 20

// maxIncludeDepth bounds include chains, as git's own limit does.
const maxIncludeDepth = 10

// readConfig takes the settings that change git status's answer from the
// config files git reads, lowest priority first: system, XDG, ~/.gitconfig
// (or $GIT_CONFIG_GLOBAL), then the repository's own, each followed by the
// files its include and includeIf (gitdir, gitdir/i, onbranch) sections
// name.
func (c *checker) readConfig() error {
	for _, path := range append(configPaths(), filepath.Join(c.commonDir, "config")) {
		c.config = c.appendConfig(c.config, path, 0)
	}
	get := func(section, key string) (string, bool) { return c.option(section, "", key) }
	if v, ok := get("core", "fileMode"); ok {
		c.fileMode = gitBool(v)
	}
	if v, ok := get("core", "ignoreCase"); ok {
		c.fold = gitBool(v)
	}
	if v, ok := get("core", "checkStat"); ok {
		c.minStat = strings.EqualFold(v, "minimal")
	}
	if v, ok := get("core", "trustCtime"); ok {
		c.noCtime = !gitBool(v)
	}
	if v, ok := get("status", "showUntrackedFiles"); ok {
		c.untrack = !(strings.EqualFold(v, "no") || !gitBool(v))
	}
	if !c.untrack {
		return nil
	}
	excludes, ok := get("core", "excludesFile")
	if !ok {
		excludes = xdgPath("ignore")
	}
	if excludes == "" {
		return nil
	}
	excludes = expandHome(excludes)
	ps, err := readPatterns(excludes, "")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	c.global = ps
	return nil
}

// option finds key in section (and subsection, "" for none) in the config
// files read, the last setting winning, as in git.
func (c *checker) option(section, subsection, key string) (string, bool) {
	for i := len(c.config) - 1; i >= 0; i-- {
		for j := len(c.config[i].Sections) - 1; j >= 0; j-- {
			s := c.config[i].Sections[j]
			switch {
			case !s.IsName(section):
			case subsection == "":
				if s.HasOption(key) {
					return s.Option(key), true
				}
			case s.HasSubsection(subsection):
				if ss := s.Subsection(subsection); ss.HasOption(key) {
					return ss.Option(key), true
				}
			}
		}
	}
	return "", false
}

// appendConfig appends the config file at path, then the files it
// includes. A missing, unreadable or broken file adds nothing.
func (c *checker) appendConfig(files []*config.Config, path string, depth int) []*config.Config {
	if depth > maxIncludeDepth {
		return files
	}
	data, err := bounded.ReadFile(path, maxConfigFile)
	if err != nil {
		return files
	}
	cfg := config.New()
	if err := config.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return files
	}
	files = append(files, cfg)
	for _, s := range cfg.Sections {
		switch {
		case s.IsName("include"):
			for _, inc := range s.Options.GetAll("path") {
				files = c.appendConfig(files, includePath(path, inc), depth+1)
			}
		case s.IsName("includeIf"):
			for _, sub := range s.Subsections {
				if !c.includeIf(sub.Name, path) {
					continue
				}
				for _, inc := range sub.Options.GetAll("path") {
					files = c.appendConfig(files, includePath(path, inc), depth+1)
				}
			}
		}
	}
	return files
}

// includePath resolves an include's path: ~/ is the home directory, and a
// relative path is relative to the including file.
func includePath(from, inc string) string {
	inc = expandHome(inc)
	if !filepath.IsAbs(inc) {
		inc = filepath.Join(filepath.Dir(from), inc)
	}
	return inc
}

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

// includeIf evaluates an includeIf condition for this repository.
func (c *checker) includeIf(cond, from string) bool {
	kind, pat, ok := strings.Cut(cond, ":")
	if !ok {
		return false
	}
	switch kind {
	case "gitdir", "gitdir/i":
		switch {
		case strings.HasPrefix(pat, "~/"):
			pat = filepath.ToSlash(expandHome(pat))
		case strings.HasPrefix(pat, "./"):
			pat = filepath.ToSlash(filepath.Dir(from)) + pat[1:]
		case !strings.HasPrefix(pat, "/"):
			pat = "**/" + pat
		}
		if strings.HasSuffix(pat, "/") {
			pat += "**"
		}
		dir := filepath.ToSlash(c.gitDir)
		real := dir
		if r, err := filepath.EvalSymlinks(c.gitDir); err == nil {
			real = filepath.ToSlash(r)
		}
		fold := kind == "gitdir/i"
		return globMatch(pat, dir, fold) || globMatch(pat, real, fold)
	case "onbranch":
		if strings.HasSuffix(pat, "/") {
			pat += "**"
		}
		ref, err := c.repo.Storer.Reference(plumbing.HEAD)
		if err != nil || ref.Type() != plumbing.SymbolicReference || !ref.Target().IsBranch() {
			return false
		}
		return globMatch(pat, ref.Target().Short(), false)
	}
	return false
}

// globMatch matches name as includeIf does: git's wildmatch in pathname
// mode.
func globMatch(pat, name string, fold bool) bool {
	return wildmatch(pat, name, true, fold)
}

// configPaths lists the system and global config files in git's order.
func configPaths() []string {
	var paths []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		paths = append(paths, "/etc/gitconfig")
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		return append(paths, g)
	}
	if p := xdgPath("config"); p != "" {
		paths = append(paths, p)
	}
	if home, err := os.UserHomeDir(); err == nil {
		paths = append(paths, filepath.Join(home, ".gitconfig"))
	}
	return paths
}

// xdgPath is $XDG_CONFIG_HOME/git/name, or ~/.config/git/name.
func xdgPath(name string) string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", name)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "git", name)
}

// gitBool reads a git boolean: a key with no value is true.
func gitBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "no", "off", "0":
		return false
	}
	return true
}
