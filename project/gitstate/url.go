package gitstate

import (
	"net/url"
	"strings"
)

// stripCredentials removes user info (for http and https, where it holds
// tokens) or the password (for other schemes), plus any query and fragment
// of http URLs, from a remote URL. scp-like addresses (git@host:path) carry
// no password and are returned as they are.
func stripCredentials(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		if i := strings.Index(raw, "://"); i >= 0 {
			// Unparseable URL: drop everything up to the last '@' of the
			// authority rather than risk leaking it.
			rest := raw[i+3:]
			auth := rest
			if j := strings.IndexByte(rest, '/'); j >= 0 {
				auth = rest[:j]
			}
			if k := strings.LastIndexByte(auth, '@'); k >= 0 {
				return raw[:i+3] + rest[k+1:]
			}
		}
		return raw
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		u.User = nil
		u.RawQuery = ""
		u.Fragment = ""
	default:
		if u.User != nil {
			u.User = url.User(u.User.Username())
		}
	}
	return u.String()
}
