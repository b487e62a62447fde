package config

import (
	"strings"
	"testing"
)

func TestInstallLimits(t *testing.T) {
	for text, want := range map[string]Install{
		"":                                      {},
		"[install]\nmax_size = 1048576\n":       {MaxSize: 1 << 20},
		"[install]\nmax_size = \"512MiB\"\n":    {MaxSize: 512 << 20},
		"[install]\nmax_size = \"2 GiB\"\n":     {MaxSize: 2 << 30},
		"[install]\nmax_size = \"500mb\"\n":     {MaxSize: 500e6},
		"[install]\nmax_size = \"4096\"\n":      {MaxSize: 4096},
		"[install]\nmax_files = 2000\n":         {MaxFiles: 2000},
		"[install]\nmax_size = \"1KiB\"\nx=1\n": {MaxSize: 1024},
	} {
		c, err := Decode("config.toml", []byte(text))
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if c.Install != want {
			t.Errorf("%q: %+v, want %+v", text, c.Install, want)
		}
	}
	for _, text := range []string{
		"[install]\nmax_size = \"lots\"\n",
		"[install]\nmax_size = \"12 parsecs\"\n",
		"[install]\nmax_size = \"0\"\n",
		"[install]\nmax_size = \"-5MiB\"\n",
		"[install]\nmax_size = \"99999999999TiB\"\n",
		"[install]\nmax_size = -1\n",
		"[install]\nmax_files = -1\n",
	} {
		_, err := Decode("config.toml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), "config.toml") || !strings.Contains(err.Error(), "max_") && !strings.Contains(err.Error(), "size") {
			t.Errorf("%q: %v, want an error naming the setting", text, err)
		}
	}
}
