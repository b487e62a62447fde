// Package redact removes credentials from URLs and from text that holds
// them (error messages, git's remote URLs), for display and for records.
// It is the one redactor: registry (sources), install, publish, the CLI's
// errors and the project's git state all use it. A leaf: it imports nothing
// of fledge's, so the lowest packages may use it.
package redact
