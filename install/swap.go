package install

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/manifest"
)

// swap replaces a plugin's tree and links so that it can be undone: the old
// tree is renamed aside (not deleted) until done, and every link made or
// removed is remembered.
type swap struct {
	paths home.Paths
	name  string

	aside   string            // where the old tree went
	placed  bool              // the new tree is at PluginDir
	made    []string          // links created
	removed map[string]string // links removed → their old targets
}

func (s *swap) final() string { return s.paths.PluginDir(s.name) }

// moveOldAside renames whatever is at the plugin's path (an old install or a
// crashed run's leftover) into the trash.
func (s *swap) moveOldAside() error {
	if _, err := os.Lstat(s.final()); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := os.MkdirAll(s.paths.TrashDir(), 0o755); err != nil {
		return err
	}
	s.aside = filepath.Join(s.paths.TrashDir(), trashName(s.name))
	if err := os.Rename(s.final(), s.aside); err != nil {
		s.aside = ""
		return fmt.Errorf("move old %s aside: %w", s.name, err)
	}
	return nil
}

func (s *swap) placeTree(staged string) error {
	if err := os.MkdirAll(s.paths.PluginsDir(), 0o755); err != nil {
		return err
	}
	if err := os.Rename(staged, s.final()); err != nil {
		return fmt.Errorf("move %s into place: %w", s.name, err)
	}
	s.placed = true
	return nil
}

func (s *swap) placeLink(target string) error {
	if err := os.MkdirAll(s.paths.PluginsDir(), 0o755); err != nil {
		return err
	}
	if err := os.Symlink(target, s.final()); err != nil {
		return fmt.Errorf("link %s to %s: %w", s.name, target, err)
	}
	s.placed = true
	return nil
}

// unlinkCommands removes the links of the commands an old install had.
func (s *swap) unlinkCommands(commands []string) {
	for _, c := range commands {
		l := s.paths.CommandLink(c)
		if t, err := os.Readlink(l); err == nil {
			if os.Remove(l) == nil {
				if s.removed == nil {
					s.removed = map[string]string{}
				}
				s.removed[l] = t
			}
		}
	}
}

// linkCommands creates BinDir/fledge-<command> links to the binaries. Links
// are a convenience for PATH users; failing to make one (e.g. on a system
// without symlinks) is reported, not fatal.
func (s *swap) linkCommands(m *manifest.Manifest, root string) error {
	if err := os.MkdirAll(s.paths.BinDir(), 0o755); err != nil {
		return err
	}
	var errs []error
	for _, c := range m.Commands {
		l := s.paths.CommandLink(c.Name)
		if t, err := os.Readlink(l); err == nil {
			// A link no plugin owns (checkSlot found no owner): replace it.
			if os.Remove(l) == nil {
				if s.removed == nil {
					s.removed = map[string]string{}
				}
				if _, seen := s.removed[l]; !seen {
					s.removed[l] = t
				}
			}
		}
		if err := os.Symlink(filepath.Join(root, filepath.FromSlash(c.Binary)), l); err != nil {
			errs = append(errs, fmt.Errorf("link command %s: %w", c.Name, err))
			continue
		}
		s.made = append(s.made, l)
	}
	return errors.Join(errs...)
}

// rollback undoes everything: new links and tree go, old ones come back.
func (s *swap) rollback() {
	for _, l := range s.made {
		os.Remove(l)
	}
	for l, t := range s.removed {
		os.Remove(l)
		os.Symlink(t, l)
	}
	if s.placed {
		if fi, err := os.Lstat(s.final()); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			os.Remove(s.final())
		} else {
			os.RemoveAll(s.final())
		}
	}
	if s.aside != "" {
		os.Rename(s.aside, s.final())
	}
}

// done deletes the old tree for good. A live-linked source behind a symlink
// is never followed: only the link itself is removed.
func (s *swap) done() {
	if s.aside != "" {
		removeTreeOrLink(s.aside)
		os.Remove(s.paths.TrashDir()) // when empty (see Interrupted)
	}
}

func removeTreeOrLink(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return os.Remove(p)
	}
	return os.RemoveAll(p)
}

func randomSuffix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
