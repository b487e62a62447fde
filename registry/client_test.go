package registry

import (
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestOptionsFromEnv(t *testing.T) {
	t.Parallel()
	const cfg = " https://idx.example.com/plugins.json "
	tests := []struct {
		name      string
		env       map[string]string
		config    string
		wantURL   string
		wantToken Token
		wantAPI   string
	}{
		{"config", nil, cfg, "https://idx.example.com/plugins.json", "", ""},
		{"env wins", map[string]string{EnvRegistryURL: " file:///x.json "}, cfg, "file:///x.json", "", ""},
		{"nothing", nil, "", "", "", ""},
		// One token for search, install and publish (TokenFromEnv).
		{"github token before gh's", map[string]string{"GH_TOKEN": "a", "GITHUB_TOKEN": "b"}, "", "", "b", ""},
		{"fledge's first", map[string]string{"GH_TOKEN": "a", "GITHUB_TOKEN": "b", "FLEDGE_GITHUB_TOKEN": "c"}, "", "", "c", ""},
		{"gh token", map[string]string{"GH_TOKEN": "a"}, "", "", "a", ""},
		{"api", map[string]string{EnvGitHubAPI: "http://127.0.0.1:1/api"}, "", "", "", "http://127.0.0.1:1/api"},
	}
	for _, tt := range tests {
		o := OptionsFromEnv(envOf(tt.env), tt.config)
		if o.RegistryURL != tt.wantURL || o.Token != tt.wantToken || o.GitHubAPI != tt.wantAPI {
			t.Errorf("%s: got url %q api %q token-set %v", tt.name, o.RegistryURL, o.GitHubAPI, o.Token != "")
		}
	}
}

func TestNewChoosesBackend(t *testing.T) {
	t.Parallel()
	idx, err := New(Options{RegistryURL: "https://idx.example.com/p.json"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := idx.(*IndexClient); !ok {
		t.Errorf("with a registry URL: %T", idx)
	}
	idx, err = New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, ok := idx.(*GitHubClient)
	if !ok || g.api != DefaultGitHubAPI {
		t.Errorf("without one: %T %+v", idx, idx)
	}
}
