//go:build !linux

package confine

import "errors"

// Apply is Linux's alone.
func Apply(Profile) error {
	return errors.New("plugins are confined on Linux only")
}
