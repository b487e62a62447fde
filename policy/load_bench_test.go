package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// What every plugin run pays for the policy when there is none: looking for
// the system file and FLEDGE_POLICY, and glancing at config.toml (which has
// no [policy], so it is not decoded again). The baseline is reading
// config.toml alone, which the run now does too.
func BenchmarkLoadWithoutPolicy(b *testing.B) {
	dir := b.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	data := []byte("[trust]\norgs = [\"my-org\", \"another\"]\nusers = [\"alice\"]\n\n[registry]\nurl = \"https://example.com/index.json\"\n")
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		b.Fatal(err)
	}
	missing := filepath.Join(dir, "etc", "policy.toml")
	b.Run("read config.toml (baseline)", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.ReadFile(cfg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read config.toml and load the policy", func(b *testing.B) {
		for b.Loop() {
			raw, err := os.ReadFile(cfg)
			if err != nil {
				b.Fatal(err)
			}
			s, err := Load(Inputs{System: missing, ConfigFile: cfg, Config: raw})
			if err != nil || !s.Empty() {
				b.Fatal(s, err)
			}
		}
	})
}
