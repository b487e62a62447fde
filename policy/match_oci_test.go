package policy

import "testing"

// OCI rules match an artifact's registry repository, with the port OCI
// names a registry by; a record fetched from oci:// is seen the same way.
func TestOCISourceRules(t *testing.T) {
	for _, tc := range []struct {
		pattern, repo string
		want          bool
	}{
		{"oci://ghcr.io/corvidlabs/*", "ghcr.io/corvidlabs/hello", true},
		{"oci://ghcr.io/corvidlabs/*", "ghcr.io/other/hello", false},
		{"oci://ghcr.io/**", "ghcr.io/a/b/c", true},
		{"oci://127.0.0.1:5000/*", "127.0.0.1:5001/hello", false},
		{"github.com/corvidlabs/*", "github.com/corvidlabs/hello", false}, // a git rule is not an OCI rule
	} {
		p, err := parsePattern(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := RecordedSource(false, "oci://"+tc.repo, "oci://"+tc.repo, "").identities()
		if err != nil {
			t.Fatal(err)
		}
		if _, got := anyMatch([]pattern{p}, ids, false); got != tc.want {
			t.Errorf("%s on %s: %v, want %v", tc.pattern, tc.repo, got, tc.want)
		}
	}
	if _, err := parsePattern("oci://ghcr.io"); err == nil {
		t.Error("oci://ghcr.io names no repository, and was taken")
	}
	if pinLevel("digest") != PinCommit {
		t.Error("a digest pin is not as exact as a commit")
	}
}
