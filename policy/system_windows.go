package policy

import (
	"path/filepath"

	"golang.org/x/sys/windows"
)

// SystemPath is where the system policy lives on Windows:
// %ProgramData%\fledge\policy.toml. The folder is asked of Windows
// (FOLDERID_ProgramData), never read from the environment, which a user
// sets.
func SystemPath() string {
	dir, err := windows.KnownFolderPath(windows.FOLDERID_ProgramData, 0)
	if err != nil || dir == "" {
		dir = `C:\ProgramData`
	}
	return filepath.Join(dir, "fledge", "policy.toml")
}
