package registry

import "github.com/corvidlabs/fledge-go/repourl"

// SameRepository reports whether two git sources name one repository,
// however each is written: the identity is package repourl's (https://,
// ssh://, git:// or git@host:path, with or without credentials, a default
// port, empty or dot segments, trailing slashes or ".git", in any case of
// scheme and host; owner and repository names on github.com compare
// case-insensitively, as GitHub treats them; a file:// repository by its
// real path). owner/repo shorthand is compared as the URL it was parsed
// into. Anything that cannot be parsed is never the same as anything.
func SameRepository(a, b Source) bool {
	if a.Kind != SourceGit || b.Kind != SourceGit {
		return false
	}
	return repourl.Same(a.URL, b.URL)
}
