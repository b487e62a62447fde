//go:build linux && !(amd64 || arm64)

package confine

import (
	"errors"
	"runtime"
)

func denySockets() error {
	return errors.New("no socket filter for " + runtime.GOARCH)
}
