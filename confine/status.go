package confine

// Status is what confinement a native plugin's own code gets here: its
// table row, whether it may use the network, and whether the kernel
// enforces that (and if not, why).
type Status struct {
	Scope    Scope
	Network  bool
	Enforced bool
	Reason   string
}

// StatusOf is the confinement of a plugin declaring the filesystem scope
// declared (its approved manifest's) with the effective grants effective,
// on a kernel offering s; off, when not empty, says who turned
// confinement off.
func StatusOf(declared string, effective Grants, s Support, off string) Status {
	st := Status{Scope: ScopeOf(declared, effective)}
	st.Network = st.Scope == ScopeDefault || effective.Network
	switch {
	case off != "":
		st.Reason = "turned off by " + off
	case !s.Files:
		st.Reason = s.Reason
	case !st.Network && !s.Network:
		st.Reason = "its files are, its network is not: " + s.Reason
	default:
		st.Enforced = true
	}
	return st
}

// Reach says in a few words what the plugin's own code may touch.
func (st Status) Reach() string {
	var files string
	switch st.Scope {
	case ScopeProject, ScopePlugin:
		files = "the project read-only, its own files"
	case ScopeDefault:
		files = "the project and /tmp read-write, its own tree (no filesystem scope declared)"
	default:
		files = "its own files only"
	}
	if st.Network {
		return files + ", the network"
	}
	return files + ", no network"
}
