//go:build windows

package install

import "golang.org/x/sys/windows"

// processAlive reports whether a process with this pid is running. When
// that cannot be told (access denied, say), it is assumed to be, so
// nothing a running fledge uses is touched.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return err != windows.ERROR_INVALID_PARAMETER // no such process
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == 259 // STILL_ACTIVE
}
