package config

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pelletier/go-toml/v2"
)

// MaxSize bounds how much of config.toml is read.
const MaxSize = 1 << 20

// Config is config.toml.
type Config struct {
	Trust    Trust    `toml:"trust"`
	Registry Registry `toml:"registry"`
}

// Trust lists GitHub owners whose plugins rank as the "team" tier.
type Trust struct {
	Orgs  []string `toml:"orgs"`
	Users []string `toml:"users"`
}

// Registry configures the plugin index.
type Registry struct {
	URL string `toml:"url"`
}

// Load reads path; a missing file is an empty Config.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxSize)
	}
	var c Config
	if err := toml.Unmarshal(data, &c); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: %v", path, row, col, err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}
