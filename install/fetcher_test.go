package install

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/trust"
)

// Every source kind ParseSource yields is either fetched by its own fetcher,
// with the identity the policy matches and the tier of its kind, or (a
// registry name, which must be looked up first) refused by name.
func TestFetcherPerSourceKind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths, err := home.New(filepath.Join(dir, "home"))
	if err != nil {
		t.Fatal(err)
	}
	in := &Installer{Paths: paths}
	real, err := filepath.EvalSymlinks(dir) // what a local source is recorded and matched as
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		raw      string
		identity policy.Source
		tier     trust.Tier
	}{
		{"https://user:secret@example.com/o/fledge-plugin-x", policy.Source{URL: "https://example.com/o/fledge-plugin-x", Registry: "x"}, trust.Unverified},
		{"https://github.com/CorvidLabs/fledge-plugin-x@v1", policy.Source{URL: "https://github.com/CorvidLabs/fledge-plugin-x", Registry: "x"}, trust.Official},
		{dir, policy.Source{Path: real, Registry: "x"}, trust.Local},
	} {
		src, err := registry.ParseSource(tc.raw, "https://github.com")
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		fe, err := in.newFetcher(src)
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if err := fe.locate(); err != nil {
			t.Fatalf("%s: locate: %v", tc.raw, err)
		}
		if got := fe.identity("x"); got != tc.identity {
			t.Errorf("%s: identity %+v, want %+v", tc.raw, got, tc.identity)
		}
		if got := fe.tier(trust.Config{}); got != tc.tier {
			t.Errorf("%s: tier %s, want %s", tc.raw, got, tc.tier)
		}
	}
	src, err := registry.ParseSource("hello", "https://github.com")
	if err != nil || src.Kind != registry.SourceName {
		t.Fatalf("ParseSource(hello) = %+v, %v: want a registry name", src, err)
	}
	var se *SourceError
	if _, err := in.newFetcher(src); !errors.As(err, &se) {
		t.Errorf("newFetcher(registry name) = %v, want a *SourceError", err)
	}
}
