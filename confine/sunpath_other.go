//go:build !linux

package confine

// sunPath is the size of a UNIX socket address's path (sun_path): 104 on
// macOS and the BSDs (Windows' 108 leaves more room).
const sunPath = 104
