package lockfile

import (
	"testing"

	"github.com/corvidlabs/fledge-go/treehash"
)

// The one approved-manifest check that install (grants, info) and the
// runner use: a copy or clone needs the approved plugin.toml, a live link
// and a record without a hash take what is there.
func TestApprovedManifest(t *testing.T) {
	approved, edited := []byte("[plugin]\nname = \"x\"\n"), []byte("[plugin]\nname = \"x\"\n[capabilities]\nexec = true\n")
	hash := treehash.FileDigest(approved)
	for _, tc := range []struct {
		kind, hash   string
		data         []byte
		edited, okay bool
	}{
		{KindGit, hash, approved, false, true},
		{KindGit, hash, edited, true, false},
		{KindLocalCopy, hash, edited, true, false},
		{KindLocalLink, hash, edited, true, true},
		{"", "", edited, false, true}, // the Rust fledge recorded no hash
	} {
		p := &Plugin{Name: "x", Kind: tc.kind, ManifestHash: tc.hash}
		if got := p.ManifestEdited(tc.data); got != tc.edited {
			t.Errorf("%s, hash %q: ManifestEdited = %v, want %v", tc.kind, tc.hash, got, tc.edited)
		}
		if got := p.ApprovedManifest(tc.data); got != tc.okay {
			t.Errorf("%s, hash %q: ApprovedManifest = %v, want %v", tc.kind, tc.hash, got, tc.okay)
		}
	}
}
