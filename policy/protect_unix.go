//go:build unix

package policy

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// unprotected says what makes path, or a directory above it, changeable
// by someone other than root ("" when nothing does).
func unprotected(path string) string {
	for p, file := path, true; ; p, file = filepath.Dir(p), false {
		fi, err := os.Lstat(p)
		if err != nil {
			return fmt.Sprintf("%s cannot be checked: %v", p, err)
		}
		what := p
		if !file {
			what = "its directory " + p
		}
		fix := fmt.Sprintf("fix it as root: chown root %s && chmod go-w %s", p, p)
		st, ok := fi.Sys().(*syscall.Stat_t)
		switch {
		case !ok:
			return fmt.Sprintf("%s: its owner cannot be read", p)
		case st.Uid != 0:
			return fmt.Sprintf("%s is owned by uid %d, not root, who can change the policy; %s", what, st.Uid, fix)
		case fi.Mode()&fs.ModeSymlink != 0:
			// A link's own mode means nothing; its target's chain is
			// judged on its own.
		case fi.Mode().Perm()&0o022 != 0 && (file || fi.Mode()&fs.ModeSticky == 0):
			who := "its group"
			if fi.Mode().Perm()&0o002 != 0 {
				who = "anyone"
			}
			return fmt.Sprintf("%s is writable by %s (mode %04o), who can change the policy; %s", what, who, fi.Mode().Perm(), fix)
		}
		if filepath.Dir(p) == p {
			return ""
		}
	}
}
