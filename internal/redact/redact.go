package redact

import (
	"regexp"
	"strings"
	"sync"
)

// urlRe finds the URLs in text: a scheme and everything up to white space
// or a quote.
var urlRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s"'<>` + "`" + `]*`) })

// Text removes the credentials of every URL in s (an error message,
// say), as URL does.
func Text(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlRe().ReplaceAllStringFunc(s, URL)
}

// Error returns err with the credentials of every URL removed from
// its message (see Text). It wraps err rather than rebuilding it
// from text, so errors.Is and errors.As still see what it wraps: a
// cancelled context, a timeout, a typed error.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{err}
}

type redactedError struct{ err error }

func (e *redactedError) Error() string { return Text(e.err.Error()) }
func (e *redactedError) Unwrap() error { return e.err }

// URL removes the credentials from a URL, for display and for the
// record: its user info, up to the last '@' of the authority (but an ssh
// URL keeps its user name, an account such as git, and loses only a
// password), and an http(s) URL's query and fragment, where tokens travel
// too. It works on the text, so a URL that does not parse loses them too.
// Anything without "://" (a path, an scp-like git@host:path, which holds no
// password) is returned as it is.
func URL(s string) string {
	i := strings.Index(s, "://")
	if i <= 0 {
		return s
	}
	scheme := strings.ToLower(s[:i])
	rest := s[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user := authority[:at]
		authority = authority[at+1:]
		if strings.Contains(scheme, "ssh") {
			if name, _, _ := strings.Cut(user, ":"); name != "" {
				authority = name + "@" + authority
			}
		}
	}
	if scheme == "http" || scheme == "https" {
		if j := strings.IndexAny(tail, "?#"); j >= 0 {
			tail = tail[:j]
		}
	}
	return s[:i+3] + authority + tail
}
