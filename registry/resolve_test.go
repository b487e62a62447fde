package registry

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// listIndex answers Lookup from a fixed list of entries.
type listIndex struct{ entries []Entry }

func (x listIndex) Search(context.Context, Query) (*Result, error) { return &Result{}, nil }
func (x listIndex) Lookup(_ context.Context, name string) (*Result, error) {
	return &Result{Entries: lookupIn(x.entries, name)}, nil
}

func TestResolve(t *testing.T) {
	t.Parallel()
	idx := listIndex{entries: []Entry{
		{Name: "fledge-plugin-deps", Repo: "https://github.com/CorvidLabs/fledge-plugin-deps"},
		{Name: "fledge-plugin-twin", Repo: "https://github.com/a/fledge-plugin-twin"},
		{Name: "fledge-plugin-twin", Repo: "https://github.com/b/fledge-plugin-twin\u202e"},
	}}
	ctx := context.Background()
	s, err := ParseSource("deps@v0.2.0", "https://github.com")
	if err != nil || s.Kind != SourceName {
		t.Fatalf("ParseSource: %+v, %v", s, err)
	}
	got, _, err := Resolve(ctx, idx, s, "https://github.com")
	if err != nil || got.Kind != SourceGit || got.URL != "https://github.com/CorvidLabs/fledge-plugin-deps" || got.Ref != "v0.2.0" {
		t.Fatalf("deps@v0.2.0 resolved to %+v, %v", got, err)
	}

	s.Name = "nothing"
	var nf *NotFoundError
	if _, _, err := Resolve(ctx, idx, s, ""); !errors.As(err, &nf) || nf.Name != "nothing" {
		t.Errorf("an unknown name: %v", err)
	}
	s.Name = "twin"
	var amb *AmbiguousError
	_, _, err = Resolve(ctx, idx, s, "")
	if !errors.As(err, &amb) || len(amb.Entries) != 2 {
		t.Fatalf("an ambiguous name: %v", err)
	}
	// The index is hostile: its text is escaped in the message.
	if msg := err.Error(); strings.ContainsRune(msg, '\u202e') || !strings.Contains(msg, `\u202e`) {
		t.Errorf("message shows the index's text unescaped: %q", msg)
	}
}
