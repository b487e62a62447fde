package install

import (
	"fmt"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/binfmt"
	"github.com/corvidlabs/fledge-go/manifest"
)

// checkPlatform refuses a command binary built for another OS or
// architecture (as a plugin that ships a prebuilt binary does when its
// build cannot run here), naming both platforms (see package binfmt).
func checkPlatform(m *manifest.Manifest, dir string) error {
	for _, c := range m.Commands {
		if err := binfmt.Check(filepath.Join(dir, filepath.FromSlash(c.Binary)), c.Binary); err != nil {
			return fmt.Errorf("plugin %s: %w", m.Plugin.Name, err)
		}
	}
	return nil
}
