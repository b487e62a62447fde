package registry

import "strings"

// DefaultPlugins are the Rust fledge's curated default plugins, pinned to
// the release tags it pins (src/plugin/mod.rs, DEFAULT_PLUGINS, v1.7.2):
// what `fledge plugins install --defaults` installs. They are owner/repo
// sources, so FLEDGE_GITHUB_URL decides where they are fetched from.
var DefaultPlugins = []string{
	"CorvidLabs/fledge-plugin-github@v0.4.0",
	"CorvidLabs/fledge-plugin-deps@v0.2.0",
	"CorvidLabs/fledge-plugin-metrics@v0.2.1",
}

// IsDefaultPlugin reports whether repo (an owner/repo, with or without an
// @ref) is one of DefaultPlugins, ignoring case and the ref.
func IsDefaultPlugin(repo string) bool {
	base, _, _ := strings.Cut(repo, "@")
	for _, d := range DefaultPlugins {
		dbase, _, _ := strings.Cut(d, "@")
		if strings.EqualFold(base, dbase) {
			return true
		}
	}
	return false
}

// IsDefaultSource reports whether an installed plugin came from one of
// DefaultPlugins: its recorded source names one (owner/repo, any ref), or
// its recorded URL is where one expands to under githubBase
// (FLEDGE_GITHUB_URL; empty means github.com), ignoring case and a .git
// suffix.
func IsDefaultSource(source, recordedURL, githubBase string) bool {
	if IsDefaultPlugin(source) {
		return true
	}
	if recordedURL == "" {
		return false
	}
	for _, d := range DefaultPlugins {
		if IsSource(d, recordedURL, githubBase) {
			return true
		}
	}
	return false
}

// IsSource reports whether recordedURL (an installed plugin's URL) is
// where repo (owner/repo[@ref]) expands to under githubBase, ignoring
// case, a trailing slash and a .git suffix.
func IsSource(repo, recordedURL, githubBase string) bool {
	norm := func(u string) string { return strings.ToLower(strings.TrimSuffix(strings.TrimRight(u, "/"), ".git")) }
	s, err := ParseSource(repo, githubBase)
	return err == nil && s.URL != "" && recordedURL != "" && norm(s.URL) == norm(recordedURL)
}

// Recommendation is a plugin suggested for a project.
type Recommendation struct {
	// Repo is the owner/repo to install.
	Repo string `json:"repo"`
	// Reason says what it is for.
	Reason string `json:"reason"`
}

// ProjectSignals are what recommendations depend on besides the language.
type ProjectSignals struct {
	// Docker is set when the project has a Dockerfile or docker-compose.yml.
	Docker bool
	// GitHub is set when the project has a .github directory.
	GitHub bool
}

// Recommend lists the plugins the Rust fledge recommends for a project in
// language (one of its labels: rust, node, go, python, …; see package
// project), in its order and without duplicates (src/plugin/recommend.rs,
// recommendations_for_language, v1.7.2).
func Recommend(language string, s ProjectSignals) []Recommendation {
	recs := []Recommendation{
		{"CorvidLabs/fledge-plugin-github", "PR and issue workflows"},
		{"CorvidLabs/fledge-plugin-deps", "dependency checking"},
		{"CorvidLabs/fledge-plugin-metrics", "project code metrics"},
		{"CorvidLabs/fledge-plugin-todo", "TODO/FIXME tracking"},
		{"CorvidLabs/fledge-plugin-secrets", "secret leak detection"},
		{"CorvidLabs/fledge-plugin-gitleaks", "git history secret scanning"},
	}
	coverage := Recommendation{"CorvidLabs/fledge-plugin-coverage", "code coverage reporting"}
	switch language {
	case "rust":
		recs = append(recs, Recommendation{"CorvidLabs/fledge-plugin-bench", "Rust benchmarking"}, coverage)
	case "node", "python", "swift":
		recs = append(recs, coverage)
	case "go":
		recs = append(recs, Recommendation{"CorvidLabs/fledge-plugin-bench", "benchmarking"}, coverage)
	}
	if s.Docker {
		recs = append(recs, Recommendation{"CorvidLabs/fledge-plugin-docker", "Docker image management"})
	}
	if s.GitHub {
		recs = append(recs, Recommendation{"CorvidLabs/fledge-plugin-github", "GitHub Actions integration"})
	}
	seen := map[string]bool{}
	out := recs[:0]
	for _, r := range recs {
		if !seen[r.Repo] {
			seen[r.Repo] = true
			out = append(out, r)
		}
	}
	return out
}
