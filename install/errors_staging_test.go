package install

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

// Errors about a staged plugin name its own paths, not fledge's staging
// directory, and keep what they wrap.
func TestHideStaging(t *testing.T) {
	t.Parallel()
	stage := filepath.Join(t.TempDir(), "plugins", ".staging", "install-1-2")
	tree := filepath.Join(stage, "tree")
	cause := &manifest.InvalidError{}
	err := hideStaging(fmt.Errorf("build in %s failed: %s: %w", tree, filepath.Join(tree, "bin", "x"), cause), stage)
	if want := "build in the plugin's root failed: " + filepath.Join("bin", "x") + ": " + cause.Error(); err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	var ie *manifest.InvalidError
	if !errors.As(err, &ie) {
		t.Error("the cause was lost")
	}
	plain := errors.New("nothing staged here")
	if hideStaging(plain, stage) != plain || hideStaging(nil, stage) != nil {
		t.Error("an error without the staging path was changed")
	}
}
