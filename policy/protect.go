package policy

import (
	"fmt"
	"path/filepath"
)

// Protection says whether a policy file is where only the administrator
// can change it: owned by root and writable by no one else, in
// directories that are too, up to the root (a sticky directory such as
// /tmp may be writable by others: they cannot rename or remove what root
// owns in it). A system policy that is not protected is still applied
// (it can only narrow), but reported, and [protection] require makes
// fledge refuse to run plugins under it.
type Protection struct {
	// Protected is true when the file and every directory above it are
	// as above.
	Protected bool
	// Reason says, when not Protected, what is wrong and how to fix it.
	Reason string
}

// CheckProtected judges path, following a symbolic link (both the link's
// directories and the target's are judged).
func CheckProtected(path string) Protection {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Protection{Reason: fmt.Sprintf("%s: %v", path, err)}
	}
	chains := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		chains = append(chains, real)
	}
	for _, p := range chains {
		if why := unprotected(p); why != "" {
			return Protection{Reason: why}
		}
	}
	return Protection{Protected: true}
}

// CheckRunProtected refuses to run plugins when a layer says [protection]
// require = true and the system policy is not protected. With no system
// policy there is nothing to protect.
func (s *Set) CheckRunProtected() *Denial {
	if s == nil || s.SystemProtection == nil || s.SystemProtection.Protected {
		return nil
	}
	for _, l := range s.Layers() {
		if l.protectRequire != nil && *l.protectRequire {
			return &Denial{Item: "protection", Rule: l.Rule("protection", "require"), File: l.Where(),
				Reason: "= true: plugins do not run while the system policy is not protected: " + s.SystemProtection.Reason}
		}
	}
	return nil
}
