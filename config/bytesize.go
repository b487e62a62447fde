package config

import (
	"fmt"
	"strconv"
	"strings"
)

// ByteSize is a size in bytes, written in config.toml as an integer or as
// a string with a unit: "512MiB", "2GiB", "500MB" (B, KiB, MiB, GiB, TiB
// and their decimal KB, MB, GB, TB, any case).
type ByteSize int64

var byteUnits = map[string]int64{
	"": 1, "b": 1,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
}

// UnmarshalText implements encoding.TextUnmarshaler for the string form.
func (b *ByteSize) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(s)
	}
	unit, ok := byteUnits[strings.ToLower(strings.TrimSpace(s[i:]))]
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if !ok || err != nil || n <= 0 || n > (1<<62)/unit {
		return fmt.Errorf("%q is not a size: write a positive number of bytes, or one with a unit such as \"512MiB\" or \"2GB\"", s)
	}
	*b = ByteSize(n * unit)
	return nil
}
