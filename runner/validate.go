package runner

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/corvidlabs/fledge-go/protocol"
)

// Validator returns the check for a prompt's "validate" field, and whether
// the name is known. Unknown validators accept anything (the plugin is
// told nothing, as a newer plugin may name one this fledge lacks).
// Relative paths for path_exists are taken from cwd.
func Validator(name, cwd string) (func(string) error, bool) {
	switch name {
	case "":
		return nil, true
	case protocol.ValidateNonEmpty:
		return func(s string) error {
			if strings.TrimSpace(s) == "" {
				return errors.New("a value is required")
			}
			return nil
		}, true
	case protocol.ValidateInteger:
		return func(s string) error {
			if _, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err != nil {
				return errors.New("enter a whole number")
			}
			return nil
		}, true
	case protocol.ValidatePathExists:
		return func(s string) error {
			p := strings.TrimSpace(s)
			if p == "" {
				return errors.New("enter a path")
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("%s does not exist", strings.TrimSpace(s))
			}
			return nil
		}, true
	case protocol.ValidateURL:
		return func(s string) error {
			u, err := url.Parse(strings.TrimSpace(s))
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return errors.New("enter an http:// or https:// URL")
			}
			return nil
		}, true
	}
	return nil, false
}
