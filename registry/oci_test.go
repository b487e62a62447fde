package registry

import (
	"strings"
	"testing"
)

func TestParseOCISource(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		raw, url, ref, host, repo, name, str string
	}{
		{"oci://ghcr.io/corvidlabs/hello:1.0.0", "oci://ghcr.io/corvidlabs/hello", "1.0.0", "ghcr.io", "corvidlabs/hello", "hello", "oci://ghcr.io/corvidlabs/hello:1.0.0"},
		{"oci://127.0.0.1:5000/p/hello@" + digest, "oci://127.0.0.1:5000/p/hello", digest, "127.0.0.1:5000", "p/hello", "hello", "oci://127.0.0.1:5000/p/hello@" + digest},
		{"OCI://localhost:5000/hello", "oci://localhost:5000/hello", "", "localhost:5000", "hello", "hello", "oci://localhost:5000/hello"},
	} {
		s, err := ParseSource(tc.raw, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if s.Kind != SourceOCI || s.URL != tc.url || s.Ref != tc.ref || s.Host != tc.host || s.Repository != tc.repo || s.Name != tc.name || s.String() != tc.str {
			t.Errorf("%s: got %+v (%s)", tc.raw, s, s.String())
		}
	}
	for raw, want := range map[string]string{
		"oci://ghcr.io":              "names no repository",
		"oci://ghcr.io/Upper/x:1":    "not a repository name",
		"oci://ghcr.io/x:-bad":       "not a tag",
		"oci://ghcr.io/x@sha256:abc": "not a digest",
		"oci://user:pw@ghcr.io/x:1":  "holds credentials",
		"oci://bad_host/x:1":         "not a registry host",
		"oci://ghcr.io:99999999/x:1": "not a port",
		"oci://ghcr.io/a/../b:1":     "not a repository name",
	} {
		_, err := ParseSource(raw, "")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", raw, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: error shows the password: %v", raw, err)
		}
	}
}
