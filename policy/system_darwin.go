package policy

// SystemPath is where the system policy lives on macOS:
// /Library/Application Support/fledge/policy.toml.
func SystemPath() string { return "/Library/Application Support/fledge/policy.toml" }
