package registry

import (
	"strings"
	"testing"
)

func TestRecommend(t *testing.T) {
	t.Parallel()
	base := "github,deps,metrics,todo,secrets,gitleaks"
	for _, tc := range []struct {
		lang string
		s    ProjectSignals
		want string
	}{
		{"generic", ProjectSignals{}, base},
		{"ruby", ProjectSignals{}, base},
		{"rust", ProjectSignals{}, base + ",bench,coverage"},
		{"go", ProjectSignals{}, base + ",bench,coverage"},
		{"node", ProjectSignals{}, base + ",coverage"},
		{"python", ProjectSignals{}, base + ",coverage"},
		{"swift", ProjectSignals{}, base + ",coverage"},
		{"generic", ProjectSignals{Docker: true}, base + ",docker"},
		// .github adds fledge-plugin-github again: it stays once, first.
		{"rust", ProjectSignals{Docker: true, GitHub: true}, base + ",bench,coverage,docker"},
	} {
		recs := Recommend(tc.lang, tc.s)
		var got []string
		for _, r := range recs {
			owner, name := RepoOwnerName("https://github.com/" + r.Repo)
			if owner != "CorvidLabs" || r.Reason == "" {
				t.Errorf("%s: %+v", tc.lang, r)
			}
			got = append(got, strings.TrimPrefix(name, "fledge-plugin-"))
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s %+v: %v, want %s", tc.lang, tc.s, got, tc.want)
		}
	}
	if r := Recommend("rust", ProjectSignals{}); r[6].Reason != "Rust benchmarking" {
		t.Errorf("rust bench reason = %q", r[6].Reason)
	}
}

func TestIsDefaultPlugin(t *testing.T) {
	t.Parallel()
	if len(DefaultPlugins) != 3 {
		t.Fatalf("%d default plugins, Rust 1.7.2 has 3", len(DefaultPlugins))
	}
	for _, s := range []string{"CorvidLabs/fledge-plugin-deps", "corvidlabs/FLEDGE-PLUGIN-DEPS@v9", "CorvidLabs/fledge-plugin-metrics@v0.2.1"} {
		if !IsDefaultPlugin(s) {
			t.Errorf("%q is a default", s)
		}
	}
	for _, s := range []string{"CorvidLabs/fledge-plugin-todo", "alice/fledge-plugin-deps", "fledge-plugin-deps"} {
		if IsDefaultPlugin(s) {
			t.Errorf("%q is not a default", s)
		}
	}
}

func TestIsDefaultSource(t *testing.T) {
	t.Parallel()
	const base = "file:///srv/gh"
	for _, tc := range []struct {
		source, url, base string
		want              bool
	}{
		{"CorvidLabs/fledge-plugin-github", "", "", true},
		{"CorvidLabs/fledge-plugin-github@v0.4.0", "file:///srv/gh/CorvidLabs/fledge-plugin-github", base, true},
		{"https://github.com/CorvidLabs/fledge-plugin-deps.git", "https://github.com/CorvidLabs/fledge-plugin-deps.git", "", true},
		{"file:///srv/gh/CorvidLabs/fledge-plugin-metrics", "file:///srv/gh/CorvidLabs/fledge-plugin-metrics", base, true},
		{"file:///srv/gh/CorvidLabs/fledge-plugin-metrics", "file:///srv/gh/CorvidLabs/fledge-plugin-metrics", "", false},
		{"alice/fledge-plugin-github", "https://github.com/alice/fledge-plugin-github", "", false},
		{"/home/me/fledge-plugin-deps", "", "", false},
	} {
		if got := IsDefaultSource(tc.source, tc.url, tc.base); got != tc.want {
			t.Errorf("IsDefaultSource(%q, %q, %q) = %v", tc.source, tc.url, tc.base, got)
		}
	}
}
