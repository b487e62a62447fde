package confine

import "fmt"

// Support says what this system's kernel can enforce.
type Support struct {
	// ABI is the Landlock ABI version the kernel offers (0: none).
	ABI int
	// Files: paths are confined (Landlock ABI 1). Network: TCP bind and
	// connect are confined (ABI 4; UDP and other sockets by a seccomp
	// filter Start adds). Devices: ioctl on devices is confined (ABI 5).
	// Scoped: signals and abstract UNIX sockets stay inside the sandbox
	// (ABI 6 with its erratum 2 fixed).
	Files, Network, Devices, Scoped bool
	// Reason says why Files or Network is false.
	Reason string
}

// Detect asks the kernel which Landlock ABI it offers.
func Detect() Support {
	abi, why := landlockABI()
	s := Support{ABI: abi, Files: abi >= 1, Network: abi >= 4, Devices: abi >= 5, Scoped: abi >= 6 && signalScopeFixed()}
	switch {
	case why != "":
		s.Reason = why
	case abi < 1:
		s.Reason = "the kernel has no Landlock"
	case abi < 4:
		s.Reason = fmt.Sprintf("the kernel's Landlock ABI %d cannot confine the network (ABI 4, Linux 6.7, can)", abi)
	}
	return s
}
