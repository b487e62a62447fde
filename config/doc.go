// Package config reads config.toml, the user's fledge settings: trusted
// GitHub orgs and users, and the plugin registry's URL. Unknown keys are
// ignored so settings of the Rust fledge in the same file do no harm.
package config
