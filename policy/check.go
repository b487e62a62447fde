package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/trust"
)

// CheckSource refuses a source that any layer denies or that a layer's
// allow list does not name. A source with nothing to match (no URL, path or
// registry name) passes no allow list.
//
// A source whose URL cannot be read (package repourl refuses it) is
// refused by the first layer with a source rule: what it names cannot be
// told, so no rule can be said to pass it.
func (s *Set) CheckSource(src Source) *Denial {
	ids, err := src.identities()
	if err != nil {
		for _, l := range s.Layers() {
			key := "deny"
			if l.hasAllow {
				key = "allow"
			} else if len(l.deny) == 0 {
				continue
			}
			return &Denial{Item: "source", Rule: l.Rule("sources", key), File: l.Where(),
				Reason: fmt.Sprintf("cannot be checked against %s: %v", describe(src), err)}
		}
		return nil
	}
	for _, l := range s.Layers() {
		if p, ok := anyMatch(l.deny, ids, false); ok {
			return &Denial{Item: "source", Rule: l.Rule("sources", "deny"), File: l.Where(),
				Reason: fmt.Sprintf("denies %q, which matches %s", p.text, src)}
		}
	}
	if d := s.checkRevoked(src); d != nil {
		return d
	}
	for _, l := range s.Layers() {
		if !l.hasAllow {
			continue
		}
		if _, ok := anyMatch(l.allow, ids, true); !ok {
			return &Denial{Item: "source", Rule: l.Rule("sources", "allow"), File: l.Where(),
				Reason: fmt.Sprintf("allows only %s, and %s matches none of them", quoteList(l.allow), describe(src))}
		}
	}
	return nil
}

func describe(src Source) string {
	if s := src.String(); s != "" {
		return s
	}
	return "a source with no known location"
}

func quoteList(ps []pattern) string {
	if len(ps) == 0 {
		return "nothing (an empty list)"
	}
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = fmt.Sprintf("%q", p.text)
	}
	return strings.Join(q, ", ")
}

// pinLevel ranks a ref kind as recorded in plugins.toml (tag, constraint,
// commit, branch, default).
func pinLevel(refKind string) string {
	switch refKind {
	case "tag", "constraint":
		return PinTag
	case "commit", "digest": // an OCI digest is as exact as a commit
		return PinCommit
	}
	return PinAny
}

// CheckPin refuses a git install or update whose ref is looser than a
// layer's [pins] require: a branch (or the default branch) where a tag is
// required, anything but a commit where a commit is. refKind is gitfetch's
// kind, or "constraint".
func (s *Set) CheckPin(refKind, ref string) *Denial {
	got := pinLevel(refKind)
	for _, l := range s.Layers() {
		if rank(got) >= rank(l.require) {
			continue
		}
		what := "the default branch"
		switch {
		case refKind == "" && ref != "":
			what = fmt.Sprintf("ref %q, whose kind was not recorded", ref)
		case refKind == "branch":
			what = fmt.Sprintf("branch %q", ref)
		case got == PinTag:
			what = fmt.Sprintf("tag %q", ref)
		}
		want := "a tag, a version constraint or a commit"
		if l.require == PinCommit {
			want = "an exact commit"
		}
		return &Denial{Item: "pin", Rule: l.Rule("pins", "require"), File: l.Where(),
			Reason: fmt.Sprintf("= %q wants %s, not %s", l.require, want, what)}
	}
	return nil
}

// MinTagAge is the longest min_tag_age of any layer (0: none).
func (s *Set) MinTagAge() time.Duration {
	var d time.Duration
	for _, l := range s.Layers() {
		d = max(d, l.minAge)
	}
	return d
}

// CheckTagAge refuses a tag younger than a layer's min_tag_age at now. made
// is when the tag was made (its tagger date, or for a lightweight tag its
// commit's committer date); zero when unknown, which no cooldown accepts.
func (s *Set) CheckTagAge(tag string, made, now time.Time) *Denial {
	for _, l := range s.Layers() {
		if l.minAge <= 0 {
			continue
		}
		d := &Denial{Item: "tag_age", Rule: l.Rule("pins", "min_tag_age"), File: l.Where()}
		switch age := now.Sub(made); {
		case made.IsZero():
			d.Reason = fmt.Sprintf("= %s, and when tag %q was made is unknown", FormatAge(l.minAge), tag)
		case age < l.minAge:
			d.Reason = fmt.Sprintf("= %s, and tag %q is only %s old (made %s); it can be installed from %s",
				FormatAge(l.minAge), tag, FormatAge(max(age, 0).Truncate(time.Minute)), made.UTC().Format(time.RFC3339), made.Add(l.minAge).UTC().Format(time.RFC3339))
		default:
			continue
		}
		return d
	}
	return nil
}

// FormatAge shows a duration as policies spell them: "72h" as "3d", "90m"
// as "1h30m", 796h5m as "33d4h5m".
func FormatAge(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= day {
		s := fmt.Sprintf("%dd", d/day)
		if rest := d % day; rest > 0 {
			s += FormatAge(rest)
		}
		return s
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Allows reports whether a plugin of tier may be granted item (a
// capability name, an env: item, judged as its capability environment, or
// ItemHooks for hooks and build commands), or returns the first rule that
// forbids it. A tier this package does not know is judged as unverified.
func (s *Set) Allows(tier, item string) *Denial {
	if !slices.Contains(trust.Tiers, trust.Tier(tier)) {
		tier = string(trust.Unverified)
	}
	asked := item
	item = string(manifest.ItemCapability(item))
	for _, l := range s.Layers() {
		if item == ItemHooks {
			if allowed, set := l.hooks[tier]; set && !allowed {
				return &Denial{Item: item, Rule: l.Rule("hooks", tier), File: l.Where(),
					Reason: fmt.Sprintf("= false: hooks and build commands of %s sources may not run", tier)}
			}
			continue
		}
		set, limited := l.caps[tier]
		if !limited || set[item] {
			continue
		}
		allowed := l.allowedItems(tier)
		what := "allows none"
		if len(allowed) > 0 {
			what = "allows only " + strings.Join(allowed, ", ")
		}
		return &Denial{Item: asked, Rule: l.Rule("capabilities", tier), File: l.Where(),
			Reason: fmt.Sprintf("%s for %s sources", what, tier)}
	}
	return nil
}

// Narrow returns what of caps and hooks a plugin of tier may keep, with a
// Denial for each capability (and for hooks) it takes away.
func (s *Set) Narrow(tier string, caps manifest.Capabilities, hooks bool) (manifest.Capabilities, bool, []Denial) {
	if s.Empty() {
		return caps, hooks, nil
	}
	keep := map[manifest.Capability]bool{}
	var denied []Denial
	for _, c := range caps.List() {
		if d := s.Allows(tier, string(c)); d != nil {
			denied = append(denied, *d)
			continue
		}
		keep[c] = true
	}
	if hooks {
		if d := s.Allows(tier, ItemHooks); d != nil {
			denied = append(denied, *d)
			hooks = false
		}
	}
	return caps.Only(keep), hooks, denied
}

// Trusted narrows the GitHub owners a user's config.toml trusts to those
// every [trust] owners rule lists (case-insensitively, as GitHub compares
// them). It returns the owners kept and a Denial for each one dropped: a
// dropped owner's plugins rank as unverified.
func (s *Set) Trusted(owners []string) ([]string, []Denial) {
	var kept []string
	var dropped []Denial
next:
	for _, o := range owners {
		for _, l := range s.Layers() {
			if l.hasOwner && !ownerIn(l.owners, o) {
				list := "none"
				if len(l.owners) > 0 {
					list = strings.Join(l.owners, ", ")
				}
				dropped = append(dropped, Denial{Item: "trust", Rule: l.Rule("trust", "owners"), File: l.Where(),
					Reason: fmt.Sprintf("lets config.toml trust only %s, so %q is not trusted", list, o)})
				continue next
			}
		}
		kept = append(kept, o)
	}
	return kept, dropped
}
