package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOptionsFromEnv(t *testing.T) {
	t.Parallel()
	cfg := writeConfig(t, "[trust]\norgs = [\"acme\"]\n\n[registry]\nurl = \"https://idx.example.com/plugins.json\"\nother = 1\n")
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
		{"no config file", nil, filepath.Join(t.TempDir(), "absent.toml"), "", "", ""},
		{"no config path", nil, "", "", "", ""},
		{"gh token first", map[string]string{"GH_TOKEN": "a", "GITHUB_TOKEN": "b"}, "", "", "a", ""},
		{"github token", map[string]string{"GITHUB_TOKEN": "b"}, "", "", "b", ""},
		{"api", map[string]string{EnvGitHubAPI: "http://127.0.0.1:1/api"}, "", "", "", "http://127.0.0.1:1/api"},
	}
	for _, tt := range tests {
		o, err := OptionsFromEnv(envOf(tt.env), tt.config)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
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

func TestConfiguredURLErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"[registry]\nurl = 3\n":      "registry.url must be a string",
		"[registry\n":                "config.toml:1:",
		strings.Repeat("#", 2<<20):   "larger than",
		"registry = \"https://x\"\n": "config.toml",
	}
	for content, want := range tests {
		_, err := ConfiguredURL(writeConfig(t, content))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ConfiguredURL(%.30q) = %v, want error containing %q", content, err, want)
		}
	}
	if u, err := ConfiguredURL(writeConfig(t, "[registry]\n")); u != "" || err != nil {
		t.Errorf("no key: %q, %v", u, err)
	}
}
