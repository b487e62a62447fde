package install

import (
	"context"
	"errors"
	"testing"
)

// With MovePins (update --defaults), an exact tag pin moves to the newest
// release tag and is recorded as the new pin; pre-releases are passed
// over, and an escalation still needs approval.
func TestUpdateMovePins(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	e := newEnv(t)
	in := e.installer(Consent{})
	ctx := context.Background()

	g := newGitRepo(t)
	g.commit(t, updPlugin("pin", "1.0.0", ""), "v1.0.0")
	if _, err := in.Install(ctx, g.url+"@v1.0.0"); err != nil {
		t.Fatalf("install: %v\n%s", err, e.log)
	}
	g.commit(t, updPlugin("pin", "1.1.0", ""), "v1.1.0")
	c12 := g.commit(t, updPlugin("pin", "1.2.0", ""), "v1.2.0")
	g.commit(t, updPlugin("pin", "2.0.0-rc.1", ""), "v2.0.0-rc.1")

	// Without it the pin stays, reporting the newer tags.
	res, err := (&Updater{Installer: in}).Update(ctx, nil)
	if err != nil || len(res) != 1 || res[0].Status != StatusUpToDate || len(res[0].NewerTags) != 2 {
		t.Fatalf("plain update: %+v, %v", res, err)
	}

	res, err = (&Updater{Installer: in, MovePins: true, DryRun: true}).Update(ctx, nil)
	if err != nil || res[0].Status != StatusWouldUpdate || res[0].To == nil || res[0].To.Ref != "v1.2.0" || res[0].To.Commit != c12 {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if p, _ := e.entry(t, "fledge-plugin-pin"); p.PinnedRef != "v1.0.0" {
		t.Fatalf("a dry run moved the pin to %q", p.PinnedRef)
	}

	res, err = (&Updater{Installer: in, MovePins: true}).Update(ctx, nil)
	if err != nil || res[0].Status != StatusUpdated || res[0].To.Ref != "v1.2.0" || res[0].From.Ref != "v1.0.0" || len(res[0].NewerTags) != 0 {
		t.Fatalf("move: %+v, %v\n%s", res, err, e.log)
	}
	p, _ := e.entry(t, "fledge-plugin-pin")
	if p.PinnedRef != "v1.2.0" || p.Tag != "v1.2.0" || p.Commit != c12 || p.Version != "1.2.0" || p.RefKind != "tag" {
		t.Errorf("record after the move: pinned %q tag %q commit %q version %q kind %q", p.PinnedRef, p.Tag, p.Commit, p.Version, p.RefKind)
	}

	// A newer tag that asks for more is not taken without approval.
	g.commit(t, updPlugin("pin", "1.3.0", "protocol = \"fledge-v1\"\n[capabilities]\nexec = true\n"), "v1.3.0")
	res, err = (&Updater{Installer: in, MovePins: true}).Update(ctx, nil)
	var ae *ApprovalError
	if err != nil || res[0].Status != StatusFailed || !errors.As(res[0].Err, &ae) {
		t.Fatalf("escalation: %+v, %v", res, err)
	}
	if p, _ := e.entry(t, "fledge-plugin-pin"); p.PinnedRef != "v1.2.0" || p.Commit != c12 {
		t.Errorf("a refused move changed the record: %q at %q", p.PinnedRef, p.Commit)
	}
}
