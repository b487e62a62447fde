package registry

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/internal/semver"
)

var fuzzTags = []Tag{
	{"v0.1.0", "c0"}, {"v0.3.5", "c1"}, {"v1.0.0", "c1"}, {"v1.2.0", "c2"}, {"1.4.0", "c2"},
	{"v1.5.0-beta.1", "c3"}, {"v2.0.0-rc.1", "c3"}, {"v1", "c3"}, {"latest", "c3"},
}

// FuzzConstraint feeds hostile refs to the detector and the resolver: no
// panic, no hang, and whatever resolves really satisfies the constraint.
func FuzzConstraint(f *testing.F) {
	for _, s := range []string{
		"^1.2", "~0.3", ">=1.0, <2", "1.x", "*", "1.2 - 1.4", "^1 || ^2", "v1.2.3", "main", "deadbeef",
		"^", ">=", "1.2.3.4", "-x", "^1.0.0-0", "=v1", "||||", " - ", "1.x.x.x", "\x00^1", "^1\n",
		strings.Repeat("^1 || ", 40), strings.Repeat("9", 200),
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	_, versions := realIndexFields(f)
	for _, s := range versions {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, ref string, pre bool) {
		isC := IsConstraint(ref)
		s := strings.TrimSpace(ref)
		if isC {
			if hexRef.MatchString(s) || strings.HasPrefix(s, "-") || len(s) > maxConstraintLen {
				t.Fatalf("IsConstraint(%q) = true for a sha, option or oversized ref", ref)
			}
			if _, err := semver.NewConstraint(s); err != nil {
				t.Fatalf("IsConstraint(%q) = true but it does not parse: %v", ref, err)
			}
		}
		tag, commit, err := ResolveConstraint(fuzzTags, ref, pre)
		if isC && errors.Is(err, ErrInvalidConstraint) {
			t.Fatalf("IsConstraint(%q) but ResolveConstraint says invalid: %v", ref, err)
		}
		if err != nil {
			var nm *NoMatchError
			if !errors.Is(err, ErrInvalidConstraint) && !errors.As(err, &nm) {
				t.Fatalf("ResolveConstraint(%q): unexpected error type %T: %v", ref, err, err)
			}
			return
		}
		found := false
		for _, tg := range fuzzTags {
			if tg.Name == tag && tg.Commit == commit {
				found = true
			}
		}
		if !found {
			t.Fatalf("ResolveConstraint(%q) = %q %q, not one of the tags", ref, tag, commit)
		}
		c, err := semver.NewConstraint(s)
		if err != nil {
			t.Fatalf("resolved %q with an unparseable constraint: %v", ref, err)
		}
		c.IncludePrerelease = pre
		v, err := semver.StrictNewVersion(strings.TrimPrefix(tag, "v"))
		if err != nil || !c.Check(v) {
			t.Fatalf("ResolveConstraint(%q, %v) = %q, which does not satisfy it", ref, pre, tag)
		}
		for _, tg := range fuzzTags {
			w, err := semver.StrictNewVersion(strings.TrimPrefix(tg.Name, "v"))
			if err == nil && c.Check(w) && w.GreaterThan(v) {
				t.Fatalf("ResolveConstraint(%q, %v) = %q, but %q is higher and matches", ref, pre, tag, tg.Name)
			}
		}
	})
}

// FuzzDecodeIndex feeds hostile documents to the index decoder: no panic,
// every error names the index, every accepted entry is usable.
func FuzzDecodeIndex(f *testing.F) {
	f.Add(readRealIndex(f))
	for _, s := range []string{
		`[]`, `{}`, `null`, `[null]`, `[{"name":"a","repo":"https://h/o/r"}]`, `[{"name":"a"}]`,
		`[{"name":"a","repo":"https://h/o/r","stars":1e400}]`, `[{"name":"\u202e","repo":"git@h:o/r","topics":[1]}]`,
		`[{"name":"a","repo":"https://h/o/r","updated_at":5}]`, `[{"name":"a","repo":"file:///x","stars":-0}]`,
		"[{\"name\":\"\xff\",\"repo\":\"https://h/o/r\"}]", `[` + strings.Repeat(`[`, 1000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := DecodeIndex(data, "SRC")
		if err != nil {
			var ie *IndexError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "registry index at SRC: ") {
				t.Fatalf("error %T %q does not name the index", err, err)
			}
			if entries != nil {
				t.Fatal("entries returned with an error")
			}
			return
		}
		for i, e := range entries {
			if strings.TrimSpace(e.Name) == "" || CheckRepoURL(e.Repo) != nil || e.Topics == nil || e.Stars < 0 {
				t.Fatalf("entry %d accepted but unusable: %+v", i, e)
			}
			if !utf8.ValidString(e.Name) || !utf8.ValidString(e.Description) || len(e.Description) > maxDescLen {
				t.Fatalf("entry %d: invalid text accepted", i)
			}
			_ = InstallSource(e, "")
		}
		_ = searchIn(entries, "a b")
		_ = lookupIn(entries, "a")
	})
}

// realIndexFields are the real index's sources, as users type them (the
// install line's argument, the repo URL, owner/name, name@version) and its
// versions: seeds for the source and constraint parsers.
func realIndexFields(f *testing.F) (sources, versions []string) {
	f.Helper()
	var entries []struct{ Name, Version, Install, Repo string }
	if err := json.Unmarshal(readRealIndex(f), &entries); err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		sources = append(sources, e.Repo, strings.TrimPrefix(e.Install, "fledge plugins install "), e.Name+"@"+e.Version, e.Repo+"@v"+e.Version)
		versions = append(versions, e.Version, "^"+e.Version, "v"+e.Version)
	}
	return sources, versions
}
