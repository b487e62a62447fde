package install

import (
	"errors"
	"fmt"
	"os"

	"github.com/corvidlabs/fledge-go/home"
)

// newStage makes a staging directory for kind ("install", "update",
// "sync") in paths.StagingDir, named after this process (see stagePrefix).
// Its cleanup removes it, and the staging area too once nothing else is
// staged there, so a finished command leaves no empty .staging behind.
func newStage(paths home.Paths, kind string) (string, func(), error) {
	for try := 0; ; try++ {
		if err := os.MkdirAll(paths.StagingDir(), 0o755); err != nil {
			return "", nil, fmt.Errorf("create staging area: %w", err)
		}
		stage, err := os.MkdirTemp(paths.StagingDir(), stagePrefix(kind))
		// Another command's cleanup may remove the empty area between the
		// two calls: make it again.
		if errors.Is(err, os.ErrNotExist) && try < 10 {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("create staging area: %w", err)
		}
		return stage, func() {
			os.RemoveAll(stage)
			os.Remove(paths.StagingDir()) // only when empty
		}, nil
	}
}
