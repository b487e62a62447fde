package bounded

// Windows has no named pipes in the file system and no O_NOFOLLOW:
// OpenNoLink compares the opened file with the name instead.
const (
	nonBlock = 0
	noFollow = 0
)
