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
	ok, why := s.Enforces(!st.Network, off)
	switch {
	case ok:
		st.Enforced = true
	case off == "" && s.Files:
		st.Reason = "its files are, its network is not: " + why
	default:
		st.Reason = why
	}
	return st
}

// Enforces says whether the kernel holds a native plugin here to what it
// is granted of its files and, with network, of the network too; why says
// what does not, with off (when not empty) naming who turned confinement
// off. StatusOf and the approval form both ask it.
func (s Support) Enforces(network bool, off string) (ok bool, why string) {
	switch {
	case off != "":
		return false, "turned off by " + off
	case !s.Files:
		return false, s.Reason
	case network && !s.Network:
		return false, s.Reason
	}
	return true, ""
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
