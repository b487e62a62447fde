//go:build !windows && !darwin

package policy

// SystemPath is where the system policy lives: /etc/fledge/policy.toml.
func SystemPath() string { return "/etc/fledge/policy.toml" }
