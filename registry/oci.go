package registry

import (
	"fmt"
	"net"
	"strings"
)

// SourceOCI is a plugin artifact in an OCI registry (package ociartifact):
// oci://HOST[:PORT]/REPO:TAG or oci://HOST[:PORT]/REPO@sha256:DIGEST.
const SourceOCI SourceKind = "oci"

// OCIScheme starts an OCI source.
const OCIScheme = "oci://"

var (
	ociRepoRe   = lazyRegexp(`^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$`)
	ociTagRe    = lazyRegexp(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	ociDigestRe = lazyRegexp(`^sha256:[a-f0-9]{64}$`)
	ociHostRe   = lazyRegexp(`^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$`)
)

// parseOCISource reads oci://HOST[:PORT]/REPO[:TAG|@sha256:DIGEST]. The
// source's URL and Display are oci://HOST[:PORT]/REPO; Ref is the tag or
// the digest ("" for none); Host and Repository split the URL.
func parseOCISource(s Source, raw string) (Source, error) {
	rest := raw[len(OCIScheme):]
	hostport, repo, ok := strings.Cut(rest, "/")
	if !ok || repo == "" {
		return s, fmt.Errorf("source %q names no repository: use oci://HOST[:PORT]/REPO:TAG or oci://HOST[:PORT]/REPO@sha256:DIGEST", raw)
	}
	if strings.Contains(hostport, "@") {
		return s, fmt.Errorf("source %q holds credentials: fledge reads registry credentials from the docker configuration (docker login or oras login)", RedactURL(raw))
	}
	host, port := hostport, ""
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, p
	}
	if !ociHostRe.MatchString(host) && net.ParseIP(host) == nil {
		return s, fmt.Errorf("source %q: %q is not a registry host", raw, host)
	}
	if port != "" && (len(port) > 5 || strings.Trim(port, "0123456789") != "") {
		return s, fmt.Errorf("source %q: %q is not a port", raw, port)
	}
	ref := ""
	if i := strings.IndexByte(repo, '@'); i >= 0 {
		repo, ref = repo[:i], repo[i+1:]
		if !ociDigestRe.MatchString(ref) {
			return s, fmt.Errorf("source %q: %q is not a digest (sha256: and 64 lower-case hex digits)", raw, ref)
		}
	} else if i := strings.LastIndexByte(repo, ':'); i >= 0 {
		repo, ref = repo[:i], repo[i+1:]
		if !ociTagRe.MatchString(ref) {
			return s, fmt.Errorf("source %q: %q is not a tag (letters, digits, '_', '.', '-'; at most 128, not starting with '.' or '-')", raw, ref)
		}
	}
	if !ociRepoRe.MatchString(repo) || len(repo) > 255 {
		return s, fmt.Errorf("source %q: %q is not a repository name (lower-case letters, digits and separators, '/' between parts)", raw, repo)
	}
	s.Kind, s.Ref = SourceOCI, ref
	s.URL = OCIScheme + hostport + "/" + repo
	s.Display = s.URL
	s.Host, s.Repository = hostport, repo
	s.Name = repo[strings.LastIndexByte(repo, '/')+1:]
	return s, nil
}

// IsDigest reports whether an OCI source's ref is a digest.
func IsDigest(ref string) bool { return strings.HasPrefix(ref, "sha256:") }
