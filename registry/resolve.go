package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// NotFoundError reports a registry name the index does not know.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no plugin named %q in the registry", e.Name)
}

// AmbiguousError reports a registry name that several plugins answer to.
// Entries are index text: its message shows them escaped.
type AmbiguousError struct {
	Name    string
	Entries []Entry
}

func (e *AmbiguousError) Error() string {
	names := make([]string, len(e.Entries))
	for i, en := range e.Entries {
		names[i] = termsafe.Escape(en.Name) + " (" + termsafe.Escape(en.Repo) + ")"
	}
	return fmt.Sprintf("%q matches several plugins: %s", e.Name, strings.Join(names, ", "))
}

// Resolve turns a registry-name source (SourceName) into the git source of
// the one plugin idx knows by that name, keeping the ref it asked for;
// owner/repo sources expand with githubBase. It fails with a
// *NotFoundError or an *AmbiguousError rather than choose. The Result is
// the lookup's, for its Stale note.
func Resolve(ctx context.Context, idx Index, s Source, githubBase string) (Source, *Result, error) {
	res, err := idx.Lookup(ctx, s.Name)
	if err != nil {
		return s, nil, err
	}
	switch len(res.Entries) {
	case 0:
		return s, res, &NotFoundError{Name: s.Name}
	case 1:
	default:
		return s, res, &AmbiguousError{Name: s.Name, Entries: res.Entries}
	}
	e := res.Entries[0]
	resolved, err := ParseSource(InstallSource(e, githubBase), githubBase)
	if err != nil {
		return s, res, fmt.Errorf("registry entry %q: %w", e.Name, err)
	}
	resolved.Ref = s.Ref
	return resolved, res, nil
}
