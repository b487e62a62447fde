// Package config reads config.toml, the user's fledge settings: trusted
// GitHub orgs and users, the plugin registry's URL and the install limits.
// Unknown keys are ignored so settings of the Rust fledge in the same file
// do no harm.
package config
