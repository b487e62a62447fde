package registry

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/internal/semver"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Tag is a tag of a remote repository and the commit it points to
// (annotated tags peeled).
type Tag struct {
	Name   string
	Commit string
}

// Bounds on constraints.
const (
	// maxConstraintLen bounds a constraint; real ones are a few bytes.
	maxConstraintLen = 128
	// maxTagsShown caps the tags an error lists.
	maxTagsShown = 10
)

// TagsFromRefs keeps refs/tags/*, preferring the peeled commit of an
// annotated tag (advertised as refs/tags/<name>^{}) over the tag object.
func TagsFromRefs(refs []*plumbing.Reference) []Tag {
	direct := map[string]string{}
	peeled := map[string]string{}
	for _, r := range refs {
		name := r.Name().String()
		if !strings.HasPrefix(name, "refs/tags/") || r.Type() != plumbing.HashReference {
			continue
		}
		short := strings.TrimPrefix(name, "refs/tags/")
		if base, ok := strings.CutSuffix(short, "^{}"); ok {
			peeled[base] = r.Hash().String()
			continue
		}
		direct[short] = r.Hash().String()
	}
	tags := make([]Tag, 0, len(direct))
	for name, hash := range direct {
		if p, ok := peeled[name]; ok {
			hash = p
		}
		tags = append(tags, Tag{Name: name, Commit: hash})
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i].Name < tags[j].Name })
	return tags
}

var (
	hexRef       = lazyRegexp(`^[0-9a-fA-F]{7,64}$`)
	wildcardPart = lazyRegexp(`^[=v]?(0|[1-9][0-9]*|[xX*])(\.(0|[1-9][0-9]*|[xX*])){0,2}$`)
)

// IsConstraint reports whether ref is a semver constraint rather than a
// plain tag, branch or commit: it must use an operator (^ ~ > < = !=), a
// wildcard (1.x, 1.2.*, *), a hyphen range (1.2 - 1.4), a list (>=1, <2)
// or alternatives (^1 || ^2), and it must parse. A plain version such as
// v1.2.3 or 1.2 names a tag; main (or x) names a branch; a hex string a
// commit.
func IsConstraint(ref string) bool {
	s := strings.TrimSpace(ref)
	if s == "" || len(s) > maxConstraintLen || strings.HasPrefix(s, "-") || hexRef.MatchString(s) {
		return false
	}
	if !looksLikeConstraint(s) {
		return false
	}
	_, err := semver.NewConstraint(s)
	return err == nil
}

func looksLikeConstraint(s string) bool {
	if s == "*" || strings.ContainsAny(s, "^~<>=!,|") || strings.Contains(s, " - ") {
		return true
	}
	// Wildcards: some token is a version with x, X or * in it.
	for _, tok := range strings.Fields(s) {
		if tok != "x" && tok != "X" && strings.ContainsAny(tok, "xX*") && wildcardPart.MatchString(tok) {
			return true
		}
	}
	return false
}

// NoMatchError is a constraint that no tag satisfies.
type NoMatchError struct {
	Constraint string
	// Tags lists the tags seen (semver tags first, highest first), capped.
	Tags []string
	// Total is how many tags the repository has.
	Total int
	// Prerelease names the highest pre-release that would have matched had
	// pre-releases been allowed, if any.
	Prerelease string
}

func (e *NoMatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no tag matches %q", e.Constraint)
	if e.Total == 0 {
		b.WriteString(": the repository has no tags")
	} else {
		fmt.Fprintf(&b, "; tags seen: %s", strings.Join(e.Tags, ", "))
		if more := e.Total - len(e.Tags); more > 0 {
			fmt.Fprintf(&b, " (and %d more)", more)
		}
	}
	if e.Prerelease != "" {
		fmt.Fprintf(&b, "; pre-release %s would match if pre-releases were allowed", e.Prerelease)
	}
	return b.String()
}

// ErrInvalidConstraint is wrapped by errors for constraints that do not
// parse.
var ErrInvalidConstraint = errors.New("invalid version constraint")

type versionedTag struct {
	tag Tag
	v   *semver.Version
}

// ResolveConstraint picks the tag with the highest version satisfying
// constraint and returns its name and commit. Tags are versions with an
// optional v prefix and all three numbers (v1.2.3, 1.2.3-rc.1); others
// (v1, latest) are ignored. Pre-releases match only when the constraint
// names one (>=2.0.0-rc.1) or allowPrerelease is set. When two tags carry
// the same version (v1.2.3 and 1.2.3), the v-prefixed one wins.
func ResolveConstraint(tags []Tag, constraint string, allowPrerelease bool) (tag, commit string, err error) {
	c := strings.TrimSpace(constraint)
	if len(c) > maxConstraintLen {
		return "", "", fmt.Errorf("%w: %d bytes, more than the %d allowed", ErrInvalidConstraint, len(c), maxConstraintLen)
	}
	cons, perr := semver.NewConstraint(c)
	if perr != nil {
		return "", "", fmt.Errorf("%w %q: %v", ErrInvalidConstraint, c, perr)
	}
	cons.IncludePrerelease = allowPrerelease
	versioned := semverTags(tags)
	for _, vt := range versioned {
		if cons.Check(vt.v) {
			return vt.tag.Name, vt.tag.Commit, nil
		}
	}
	ne := &NoMatchError{Constraint: c, Total: len(tags), Tags: shownTags(tags, versioned)}
	if !allowPrerelease {
		cons.IncludePrerelease = true
		for _, vt := range versioned {
			if vt.v.Prerelease() != "" && cons.Check(vt.v) {
				ne.Prerelease = vt.tag.Name
				break
			}
		}
	}
	return "", "", ne
}

// semverTags returns the tags that are versions, highest first.
func semverTags(tags []Tag) []versionedTag {
	var out []versionedTag
	for _, t := range tags {
		if len(t.Name) > maxConstraintLen {
			continue
		}
		v, err := semver.StrictNewVersion(strings.TrimPrefix(t.Name, "v"))
		if err != nil {
			continue
		}
		out = append(out, versionedTag{tag: t, v: v})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if c := out[i].v.Compare(out[j].v); c != 0 {
			return c > 0
		}
		vi, vj := strings.HasPrefix(out[i].tag.Name, "v"), strings.HasPrefix(out[j].tag.Name, "v")
		if vi != vj {
			return vi
		}
		return out[i].tag.Name < out[j].tag.Name
	})
	return out
}

// shownTags lists tags for an error: versions highest first, then the
// rest by name, capped at maxTagsShown.
func shownTags(tags []Tag, versioned []versionedTag) []string {
	seen := map[string]bool{}
	var out []string
	for _, vt := range versioned {
		seen[vt.tag.Name] = true
		out = append(out, vt.tag.Name)
	}
	var rest []string
	for _, t := range tags {
		if !seen[t.Name] {
			rest = append(rest, t.Name)
		}
	}
	sort.Strings(rest)
	out = append(out, rest...)
	if len(out) > maxTagsShown {
		out = out[:maxTagsShown]
	}
	for i, s := range out {
		out[i] = termsafe.Truncate(s, 64)
	}
	return out
}
