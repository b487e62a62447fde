package lockfile

import "testing"

// A record's kind decides what is done with it: a Rust record without one
// is git, a live link is local and live, a copy local with --copy to make
// it again, and a kind this fledge does not know is fetched from its URL.
func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		kind string
		want KindInfo
	}{
		{"", KindInfo{Kind: KindGit, VCS: true}},
		{KindGit, KindInfo{Kind: KindGit, VCS: true}},
		{KindLocalLink, KindInfo{Kind: KindLocalLink, Local: true, Live: true}},
		{KindLocalCopy, KindInfo{Kind: KindLocalCopy, Local: true, InstallFlag: "--copy"}},
		{"oci", KindInfo{Kind: "oci"}},
	} {
		p := &Plugin{Kind: tc.kind}
		if got := p.KindInfo(); got != tc.want {
			t.Errorf("kind %q: %+v, want %+v", tc.kind, got, tc.want)
		}
		if p.IsLocal() != tc.want.Local {
			t.Errorf("kind %q: IsLocal = %v", tc.kind, p.IsLocal())
		}
	}
}
