package lockfile

// A disabled plugin stays installed (its tree, record, grants and data are
// kept) but has no entry point: no command runs, completes or is offered
// as a tool, no hook runs, and no command link is in BinDir. Its record
// still owns its commands (CommandOwner finds it), so the runner can say
// why a command does not run, and no program on PATH or other plugin
// takes the command over while it is disabled.

// IsDisabled reports whether the plugin is disabled.
func (p *Plugin) IsDisabled() bool { return p.DisabledBy != "" }

// Disabled says who disabled the plugin and when, as errors, list, info
// and audit show it after "disabled by"; "" when it is enabled.
func (p *Plugin) Disabled() string {
	if p.DisabledBy == "" {
		return ""
	}
	s := p.DisabledBy
	if p.DisabledAt != "" {
		s += " at " + p.DisabledAt
	}
	return s + " (fledge plugins disable)"
}

// DisabledError reports an entry point of a disabled plugin that was
// reached for: a command, a tool, a hook, an update.
type DisabledError struct {
	Plugin string
	// By is Plugin.Disabled: who disabled it and when.
	By string
	// What is what did not happen: "command hello does not run".
	What string
}

func (e *DisabledError) Error() string {
	return "plugin " + e.Plugin + " is disabled (by " + e.By + "): " + e.What
}

// DisabledErr returns a *DisabledError for p, or nil when p is enabled.
func (p *Plugin) DisabledErr(what string) error {
	if !p.IsDisabled() {
		return nil
	}
	return &DisabledError{Plugin: p.Name, By: p.Disabled(), What: what}
}
