package policy

import (
	"strings"
	"testing"
)

// A mirror rule rewrites what it matches, the admin's layer before the
// user's, the most specific rule first; an OCI mirror's path is
// lower-cased, as OCI repository names are.
func TestMirrorFor(t *testing.T) {
	sys, err := Parse("sys", []byte(`[mirrors]
"github.com/CorvidLabs/*" = "oci://mirror.corp/fledge/CorvidLabs/*"
"github.com/*" = "https://git.corp/mirror/gh/*"
`))
	if err != nil {
		t.Fatal(err)
	}
	user, err := Parse("cfg", []byte(`[mirrors]
"github.com/CorvidLabs/*" = "https://elsewhere/*"
"gitlab.com/acme/*" = "https://git.corp/mirror/acme/*"
"file:///srv/repos/*" = "oci://m/*"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{layers: []*Layer{sys, user}}
	for url, want := range map[string]string{
		"https://github.com/CorvidLabs/Hello.git": "oci://mirror.corp/fledge/CorvidLabs/hello",
		"git@github.com:corvidlabs/hello":         "oci://mirror.corp/fledge/CorvidLabs/hello",
		"https://github.com/other/x":              "https://git.corp/mirror/gh/other/x",
		"https://gitlab.com/acme/sub/tool":        "https://git.corp/mirror/acme/sub/tool",
		"https://gitlab.com/other/tool":           "",
		"file:///srv/plugins/x":                   "",
	} {
		m, ok := s.MirrorFor(url)
		if m.URL != want || ok != (want != "") {
			t.Errorf("%s: mirror %q (%v), want %q", url, m.URL, ok, want)
		}
		if ok && (m.OCI != strings.HasPrefix(want, "oci://") || m.Rule == "") {
			t.Errorf("%s: %+v", url, m)
		}
	}
	for _, bad := range []string{
		`"github.com/x" = "oci://m/x/*"`,
		`"github.com/x/*" = "oci://m/x"`,
		`"github.com/x/*" = "http://m/x/*"`,
		`"registry:x*" = "oci://m/x/*"`,
	} {
		if _, err := Parse("bad", []byte("[mirrors]\n"+bad+"\n")); err == nil || !strings.Contains(err.Error(), "[mirrors]") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
