package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// An update's approval form lists what it asks about and also the approved
// hooks that carry over unchanged: they run too, and the form says so.
func TestUpdateApprovalShowsUnchangedBuild(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	dir := filepath.Join(t.TempDir(), "fledge-plugin-bld")
	repo := newE2ERepo(t, dir)
	v1 := "[plugin]\nname = \"fledge-plugin-bld\"\nversion = \"1.0.0\"\n\n[[commands]]\nname = \"bld\"\nbinary = \"bin/bld\"\n\n[hooks]\nbuild = \"mkdir -p bin && printf '#!/bin/sh\\\\n' > bin/bld && chmod 755 bin/bld\"\n"
	repo.commit(t, map[string]string{"plugin.toml": v1}, "v1.0.0")
	if code, _, errOut := f.fledgeOnTerminal(newMockPrompter(t), "plugins", "install", "file://"+dir, "--grant", "hooks"); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, errOut)
	}
	v2 := strings.Replace(strings.Replace(v1, "1.0.0", "2.0.0", 1), "[hooks]", "[capabilities]\nstore = true\n\n[hooks]", 1)
	repo.commit(t, map[string]string{"plugin.toml": v2}, "v2.0.0")

	p := newMockPrompter(t, promptStep{kind: "multiselect", title: "Grant fledge-plugin-bld", answer: []int{0}})
	code, out, errOut := f.fledgeOnTerminal(p, "plugins", "update")
	if code != 0 {
		t.Fatalf("update: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	want := "It would also run (approved before, unchanged):\n  build            mkdir -p bin"
	if !strings.Contains(errOut, want) {
		t.Errorf("the form omits the build that will run; want %q in:\n%s", want, errOut)
	}
	if strings.Contains(errOut, "It would run:") {
		t.Errorf("nothing new runs, yet the form says so:\n%s", errOut)
	}
}
