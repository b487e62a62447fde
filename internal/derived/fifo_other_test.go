//go:build !unix

package derived

import "errors"

func mkfifo(string) error { return errors.New("not supported") }
