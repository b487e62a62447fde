package registry

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pelletier/go-toml/v2"
)

// maxConfigSize bounds how much of config.toml is read.
const maxConfigSize = 1 << 20

// ConfiguredURL returns the registry.url key of the config.toml at path,
// or "" when the file or the key is absent. It reads only that key; the
// rest of the file belongs to others.
func ConfiguredURL(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxConfigSize {
		return "", fmt.Errorf("%s is larger than %d bytes", path, maxConfigSize)
	}
	var cfg struct {
		Registry struct {
			URL any `toml:"url"`
		} `toml:"registry"`
	}
	if err := toml.Unmarshal(data, &cfg); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return "", fmt.Errorf("%s:%d:%d: %s", path, row, col, de.Error())
		}
		return "", fmt.Errorf("%s: %w", path, err)
	}
	switch u := cfg.Registry.URL.(type) {
	case nil:
		return "", nil
	case string:
		return u, nil
	default:
		return "", fmt.Errorf("%s: registry.url must be a string (a http(s):// or file:// URL), got %T", path, u)
	}
}
