//go:build unix && !linux

package cli_test

import (
	"errors"
	"os"
)

func hOpenPTY() (master, slave *os.File, err error) {
	return nil, nil, errors.New("pseudo-terminals are opened on Linux only in these tests")
}
