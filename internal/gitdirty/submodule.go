package gitdirty

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// maxSubmoduleDepth bounds submodules inside submodules.
const maxSubmoduleDepth = 8

// readModules reads each submodule's ignore setting from .gitmodules, the
// setting that decides how much of its state git status reports: "all"
// nothing, "dirty" only a different commit, "untracked" also changed
// files, "none" (the default) also untracked files. Config
// (submodule.<name>.ignore) overrides it, as in git.
func (c *checker) readModules() error {
	hasLinks := false
	for i := range c.idx.entries {
		if c.idx.entries[i].mode == filemode.Submodule {
			hasLinks = true
			break
		}
	}
	if !hasLinks {
		return nil
	}
	data, err := bounded.ReadFile(filepath.Join(c.root, ".gitmodules"), maxConfigFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	mods := config.New()
	if err := config.NewDecoder(bytes.NewReader(data)).Decode(mods); err != nil {
		return nil // git warns about a broken .gitmodules and goes on
	}
	c.ignore = map[string]string{}
	for _, s := range mods.Section("submodule").Subsections {
		path := s.Option("path")
		ignore := s.Option("ignore")
		if v, ok := c.option("submodule", s.Name, "ignore"); ok {
			ignore = v
		}
		if path != "" && ignore != "" {
			c.ignore[path] = strings.ToLower(ignore)
		}
	}
	return nil
}

// submoduleChanged is what git status says of a submodule at e: changed
// when it has another commit checked out, or (unless its ignore setting
// says otherwise) changes or untracked files of its own. A submodule that
// was never initialised (an empty directory) is unchanged.
func (c *checker) submoduleChanged(e *indexEntry, path string) (bool, error) {
	ignore := c.ignore[e.name]
	if ignore == "all" {
		return false, nil
	}
	if c.depth >= maxSubmoduleDepth {
		return true, nil
	}
	sub, err := git.PlainOpenWithOptions(path, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return false, nil // not checked out
	}
	head, err := sub.Head()
	if err != nil || head.Hash() != e.hash {
		return true, nil
	}
	if ignore == "dirty" {
		return false, nil
	}
	return dirty(sub, c.depth+1, ignore == "untracked")
}
