package semver_test

import (
	"testing"

	upstream "github.com/Masterminds/semver/v3"

	"github.com/corvidlabs/fledge-go/internal/semver"
)

// seeds are versions and constraints of every form the parsers know, good
// and bad.
var seeds = []struct{ version, constraint string }{
	{"1.2.3", "^1.2"},
	{"v1.2.3", "~1.2.0"},
	{"1.2", ">= 1.0, < 2"},
	{"1", "1.x"},
	{"0.0.3", "^0.0.3"},
	{"0.2.5", "^0.2"},
	{"2.0.0-rc.1", ">=2.0.0-rc.1"},
	{"2.0.0-rc.1+build.5", "2.0.0-rc.1"},
	{"1.2.3+meta", "!= 1.2.3"},
	{"01.2.3", "1.2 - 1.4"},
	{"1.2.3-01", "^1 || ^2"},
	{"", "*"},
	{"x", "=> 1.2, =< 3"},
	{"1.2.3.4", "~> 1.2"},
	{"v", ">1 <3"},
	{"1.2.3-", "1.2.*"},
	{"99999999999999999999.0.0", "<= 1.2.3-beta"},
	{"1.0.0-alpha.beta", "> 1.0.0-alpha.1"},
	{"1.0.0-0", "^0"},
	{"3.4.5", "1.2 - "},
	{"2.x", ">= 1.x , < 3.X"},
}

// TestMatchesUpstream runs the seeds through FuzzMatchesUpstream's check.
func TestMatchesUpstream(t *testing.T) {
	for _, s := range seeds {
		matches(t, s.version, s.constraint)
	}
}

// FuzzMatchesUpstream: every version and constraint parses, compares and
// checks as upstream's.
func FuzzMatchesUpstream(f *testing.F) {
	for _, s := range seeds {
		f.Add(s.version, s.constraint)
	}
	f.Fuzz(matches)
}

func matches(t *testing.T, version, constraint string) {
	for _, v := range []string{version, constraint} {
		got, err := semver.NewVersion(v)
		want, werr := upstream.NewVersion(v)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("NewVersion(%q) error = %v, upstream %v", v, err, werr)
		}
		if err == nil && got.String() != want.String() {
			t.Fatalf("NewVersion(%q) = %s, upstream %s", v, got, want)
		}
		gs, err := semver.StrictNewVersion(v)
		ws, werr := upstream.StrictNewVersion(v)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("StrictNewVersion(%q) error = %v, upstream %v", v, err, werr)
		}
		if err == nil && (gs.String() != ws.String() || gs.Prerelease() != ws.Prerelease()) {
			t.Fatalf("StrictNewVersion(%q) = %s, upstream %s", v, gs, ws)
		}
	}
	a, errA := semver.NewVersion(version)
	b, errB := semver.NewVersion(constraint)
	ua, _ := upstream.NewVersion(version)
	ub, _ := upstream.NewVersion(constraint)
	if errA == nil && errB == nil {
		if got, want := a.Compare(b), ua.Compare(ub); got != want {
			t.Fatalf("Compare(%q, %q) = %d, upstream %d", version, constraint, got, want)
		}
		if a.LessThan(b) != ua.LessThan(ub) || a.GreaterThan(b) != ua.GreaterThan(ub) {
			t.Fatalf("LessThan/GreaterThan(%q, %q) differ from upstream", version, constraint)
		}
	}
	c, err := semver.NewConstraint(constraint)
	uc, werr := upstream.NewConstraint(constraint)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("NewConstraint(%q) error = %v, upstream %v", constraint, err, werr)
	}
	if err != nil || errA != nil {
		return
	}
	if c.String() != uc.String() {
		t.Fatalf("NewConstraint(%q) = %s, upstream %s", constraint, c, uc)
	}
	for _, pre := range []bool{false, true} {
		c.IncludePrerelease, uc.IncludePrerelease = pre, pre
		if got, want := c.Check(a), uc.Check(ua); got != want {
			t.Fatalf("NewConstraint(%q).Check(%q) with pre-releases %v = %v, upstream %v", constraint, version, pre, got, want)
		}
	}
}
