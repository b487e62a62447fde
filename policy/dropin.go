package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// DropInDirName is the directory beside the system policy whose *.toml
// files are more system layers: administrators (and configuration
// management) add a file each instead of editing one.
const DropInDirName = "policy.d"

// DropIn is one drop-in policy file read, and whether it is protected as
// the system policy must be.
type DropIn struct {
	File       string
	Protection Protection
}

// DropInDir is the drop-in directory beside the system policy at system
// (/etc/fledge/policy.d for /etc/fledge/policy.toml); "" when system is.
func DropInDir(system string) string {
	if system == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(system), DropInDirName)
}

// DropIns lists the drop-in files beside the system policy at system: the
// *.toml entries of DropInDir in lexical order (each a layer after the
// system file), and the other entries, which are not read. None when
// system is "" or the directory does not exist; an error when it cannot be
// read, which fails the policy closed as an unreadable file does.
func DropIns(system string) (files, ignored []string, err error) {
	dir := DropInDir(system)
	if dir == "" {
		return nil, nil, nil
	}
	entries, err := os.ReadDir(dir) // sorted by name
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		// A directory named *.toml is not skipped: reading it fails, and
		// so does the policy, as for any file that cannot be read.
		if strings.HasSuffix(e.Name(), ".toml") {
			files = append(files, p)
		} else {
			ignored = append(ignored, p)
		}
	}
	return files, ignored, nil
}

// systemProtection judges the system policy as a whole: the system file
// (when found) and each drop-in. It is nil when there is neither, and
// unprotected when any part is, with every part's reason.
func systemProtection(system *Protection, dropIns []DropIn) *Protection {
	parts := dropIns
	if system != nil {
		parts = append([]DropIn{{Protection: *system}}, dropIns...)
	}
	if len(parts) == 0 {
		return nil
	}
	var why []string
	for _, d := range parts {
		if !d.Protection.Protected {
			why = append(why, d.Protection.Reason)
		}
	}
	return &Protection{Protected: len(why) == 0, Reason: strings.Join(why, "; ")}
}
