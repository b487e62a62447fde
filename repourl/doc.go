// Package repourl is the one parser of git repository URLs: every spelling
// fledge accepts (https://, http:// on a loopback host, ssh://, git://, the
// scp-like user@host:path, and file://) becomes one canonical repository
// identity, or an error naming what is wrong with it. Install, sync,
// update, the admin policy, the run-time policy check and the trust tier
// all compare that identity, never URL text.
//
// # What is canonicalised
//
// Two spellings have the same identity (Repo.ID) when they differ only in:
//   - the case of the scheme and the host, and a trailing dot on the host;
//   - the scheme itself among https, http, ssh, scp-like and git (the same
//     host and path is the same repository, whatever the transport);
//   - credentials and user names (user@, user:password@);
//   - a port that is the scheme's default (https 443, http 80, ssh 22,
//     git 9418), an empty port ("host:") and leading zeros in a port;
//   - empty path segments ("/evil//x"), "." segments, a leading or
//     trailing slash, and one trailing ".git";
//   - for http and https only, ".." segments, resolved as curl resolves
//     them before git's request is sent;
//   - percent-encoded letters, digits, '-', '_' and '~' ("%65vil" is
//     "evil");
//   - on github.com only, the case of the path (GitHub's owner and
//     repository names are case-insensitive; other hosts' may not be);
//   - for file://, everything the file system resolves: the identity is
//     the real path (filepath.EvalSymlinks) of the directory git would
//     open (the path, or the path with ".git" added, as git tries them).
//     For a path that does not exist, its deepest existing ancestor is
//     resolved and the rest cleaned.
//
// An IPv6 host is written in its canonical form (an IPv4-mapped one as the
// IPv4 address).
//
// # What is refused
//
//   - any other scheme (ftp://, git+ssh://, transport helpers like ext::);
//   - percent-encoding of anything else: separators (%2F, %5C), '.'
//     (%2E), '%' itself, controls, spaces and non-ASCII bytes. A server
//     decodes them after every check has read the path, so "%2F" could
//     join two segments a rule reads apart. In file:// URLs, '%' at all;
//   - a backslash, a space, a control character, '?' (a query) or '#' (a
//     fragment) anywhere;
//   - ".." in ssh, scp-like and git:// paths: the server resolves those in
//     its file system, where "x/.." need not be the parent when x is a
//     symlink; and ".." above the root in http paths;
//   - more than one '@' before the host, a host starting with '-' (it
//     would reach ssh as an option), a host with characters other than
//     letters, digits, '.', '-' and '_', and numeric hosts that are not a
//     canonical dotted IPv4 address ("127.1", "0x7f.0.0.1", "2130706433"
//     and "0177.0.0.1" all reach 127.0.0.1; write it so);
//   - an IPv6 zone, a port that is not a number from 1 to 65535;
//   - a URL that names no repository (an empty path, or only ".git").
//
// Not canonicalised, because they can name different repositories:
// different hosts that resolve to one machine ("localhost" and
// "127.0.0.1"), "www.github.com" and "github.com", different non-default
// ports, and different users of one ssh host (ssh://alice@host/x and
// ssh://bob@host/x); for the last two, rules that ignore them (the policy's
// host/path patterns) match more, never less.
//
// GitHubOwner is the stricter question the trust tier asks: is this,
// without any doubt, https://github.com/owner/repo (or ssh as git@)? Any
// unusual spelling is "no": a tier is only ever lowered by doubt.
//
// Patterns (ParsePattern) are the admin policy's source rules spelt as git
// URLs or as host[:port]/path: they are read by the same rules, with glob
// characters allowed and without touching the file system but for the
// literal prefix of a file:// pattern, which is resolved as a source's real
// path is.
//
// It does not fetch anything, decide what a source string is (package
// registry tells a local path, owner/repo and a registry name from a git
// URL) or match globs (package policy does).
package repourl
