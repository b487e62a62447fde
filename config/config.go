package config

import (
	"errors"
	"fmt"
	"os"

	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// MaxSize bounds how much of config.toml is read.
const MaxSize = 1 << 20

// Config is config.toml.
type Config struct {
	Trust    Trust    `toml:"trust"`
	Registry Registry `toml:"registry"`
	Install  Install  `toml:"install"`
	OCI      OCI      `toml:"oci"`
	// Provenance lists the signers this user trusts ([provenance]
	// allowed_signers: git's allowed-signers files, or armored OpenPGP
	// public keys; relative paths are read from config.toml's directory).
	Provenance Provenance `toml:"provenance"`
}

// OCI configures how OCI registries are reached.
type OCI struct {
	// PlainHTTP lists registries (host or host:port) reached over plain
	// http; loopback registries fall back to it on their own.
	PlainHTTP []string `toml:"plain_http"`
}

// Provenance is config.toml's [provenance].
type Provenance struct {
	AllowedSigners []string `toml:"allowed_signers"`
}

// Install bounds what one install, update or sync of a git plugin may
// fetch and write; zero values mean fledge's defaults.
type Install struct {
	// MaxSize is the most a plugin's files may come to, together.
	MaxSize ByteSize `toml:"max_size"`
	// MaxFiles is the most files a plugin may have.
	MaxFiles int `toml:"max_files"`
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
	data, err := Read(path)
	if err != nil {
		return nil, err
	}
	return Decode(path, data)
}

// Read returns config.toml's bytes, bounded; a missing file reads as empty.
func Read(path string) ([]byte, error) {
	data, err := bounded.ReadFile(path, MaxSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Decode parses bytes returned by Read; path only names the file in errors.
func Decode(path string, data []byte) (*Config, error) {
	var c Config
	if len(data) == 0 {
		return &c, nil
	}
	if err := toml.Unmarshal(data, &c); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: %v", path, row, col, err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.Install.MaxSize < 0 || c.Install.MaxFiles < 0 {
		return nil, fmt.Errorf("%s: [install] max_size and max_files must be positive (or left out for the defaults)", path)
	}
	return &c, nil
}
