package repourl

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// canonicalHost lower-cases a host and refuses the spellings whose meaning
// depends on who reads them.
func canonicalHost(raw, h string, brackets, pattern bool) (string, error) {
	if brackets {
		if pattern && strings.ContainsAny(h, "*?[]") {
			return strings.ToLower(h), nil
		}
		if strings.Contains(h, "%") {
			return "", fmt.Errorf("%q: an IPv6 zone (%%) names no host on the network", raw)
		}
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() {
			return "", fmt.Errorf("%q: [%s] is not an IPv6 address", raw, h)
		}
		return a.Unmap().String(), nil
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "" {
		return "", fmt.Errorf("%q names no host", raw)
	}
	if h[0] == '-' {
		return "", fmt.Errorf("%q: host %q starts with '-', which ssh would read as an option", raw, h)
	}
	for _, c := range h {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' ||
			pattern && strings.ContainsRune("*?[]", c)
		if !ok {
			return "", fmt.Errorf("%q: host %q holds %q: fledge accepts ASCII letters, digits, '.', '-' and '_' in host names (an internationalised name in its xn-- form)", raw, h, c)
		}
	}
	if strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return "", fmt.Errorf("%q: host %q has an empty label", raw, h)
	}
	// A host whose last label starts with a digit is read as a number by
	// the resolver, in forms (127.1, 0x7f.1, 2130706433, 0177.0.0.1) a
	// rule written 127.0.0.1 would not see: only the canonical one passes.
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last != "" && last[0] >= '0' && last[0] <= '9' && !(pattern && strings.ContainsAny(h, "*?[]")) {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is4() || a.String() != h {
			return "", fmt.Errorf("%q: host %q is not a canonical IPv4 address (four decimal numbers without leading zeros, as 127.0.0.1)", raw, h)
		}
	}
	return h, nil
}

// canonicalPort drops a default port and leading zeros.
func canonicalPort(raw string, p parts, pattern bool) (string, error) {
	if !p.hasPort || p.port == "" {
		return "", nil
	}
	n, err := strconv.Atoi(p.port)
	if err != nil || n < 1 || n > 65535 || strings.ContainsAny(p.port, "+-") {
		return "", fmt.Errorf("%q: port %q is not a number from 1 to 65535", raw, p.port)
	}
	port := strconv.Itoa(n)
	if port == defaultPorts[p.scheme] && !p.bare {
		return "", nil
	}
	return port, nil
}

// canonicalPath reads a network URL's path into its segments.
func canonicalPath(raw, scheme, path string, pattern bool) (string, error) {
	decoded, err := decodeUnreserved(raw, path)
	if err != nil {
		return "", err
	}
	var segs []string
	for _, s := range strings.Split(decoded, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			if pattern {
				return "", fmt.Errorf("%q: a pattern holds a '..' segment: write the path it means", raw)
			}
			if scheme != "http" && scheme != "https" {
				return "", fmt.Errorf("%q: '..' in a %s path is resolved by the server's file system, where it need not mean the parent: write the path it means", raw, scheme)
			}
			if len(segs) == 0 {
				return "", fmt.Errorf("%q: '..' climbs above the root of the path", raw)
			}
			segs = segs[:len(segs)-1]
			continue
		}
		segs = append(segs, s)
	}
	if n := len(segs); n > 0 {
		if strings.HasSuffix(segs[n-1], ".git") {
			seg := segs[n-1]
			segs[n-1] = strings.TrimSuffix(seg, ".git")
			switch segs[n-1] {
			case "":
				segs = segs[:n-1]
			case ".", "..":
				// "..git" less ".git" is a dot segment, which names no
				// directory of its own: no identity could spell it.
				return "", fmt.Errorf("%q: its last segment %q is %q without .git, which names no repository: write the repository's own name", raw, seg, segs[n-1])
			}
		}
	}
	if len(segs) == 0 && !pattern {
		return "", fmt.Errorf("%q names no repository: its path is empty", raw)
	}
	return strings.Join(segs, "/"), nil
}

// decodeUnreserved decodes percent-encoded letters, digits, '-', '_' and
// '~', which every reader treats as the characters themselves, and refuses
// any other percent-encoding.
func decodeUnreserved(raw, s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", fmt.Errorf("%q: '%%' not followed by two hex digits", raw)
		}
		n, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
		c := byte(n)
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '~') {
			return "", fmt.Errorf("%q: the path holds %s, a percent-encoded %s, which fledge refuses: a server decodes it after every check has read the path; write the path without it", raw, s[i:i+3], describeByte(c))
		}
		b.WriteByte(c)
		i += 2
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func describeByte(c byte) string {
	switch {
	case c == '/':
		return "'/'"
	case c == '\\':
		return "backslash"
	case c == '.':
		return "'.'"
	case c < 0x20 || c == 0x7f:
		return "control character"
	case c >= 0x80:
		return "non-ASCII byte"
	}
	return fmt.Sprintf("%q", rune(c))
}
