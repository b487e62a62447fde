package lockfile

// KindInfo is what sets one kind of record apart. Code that treats records
// differently by where they came from asks a record's KindInfo rather than
// comparing Kind with a constant, so a new kind of source is a row of
// Kinds (and its fetcher in package install).
type KindInfo struct {
	// Kind is the kind as plugins.toml records it.
	Kind string
	// Local marks a plugin installed from a directory on this machine: its
	// tier is local, the policy matches its path, it has no URL, and
	// nothing fetches it again (update skips it, sync refuses it).
	Local bool
	// Live marks a plugin whose files are that directory itself: edits
	// show through, so its plugin.toml is read as it is now rather than
	// checked against the approved one, and nothing is built or changed
	// in it beyond what its hooks do.
	Live bool
	// VCS marks a plugin fetched from a version-control repository: its
	// URL and commit name that repository's revision (an SBOM's vcs
	// reference, a package URL's vcs_url).
	VCS bool
	// InstallFlag is the install flag that makes a record of this kind
	// from the same source ("--copy"), "" for none.
	InstallFlag string
}

// Kinds lists the kinds of record fledge writes.
var Kinds = []KindInfo{
	{Kind: KindGit, VCS: true},
	{Kind: KindLocalLink, Local: true, Live: true},
	{Kind: KindLocalCopy, Local: true, InstallFlag: "--copy"},
	{Kind: KindOCI},
}

// KindOf is kind's row of Kinds. A record without a kind (the Rust
// fledge's) is git; a kind this fledge does not know (a newer fledge's) is
// taken as fetched from its URL, neither local nor live, with no claim
// about what that URL is.
func KindOf(kind string) KindInfo {
	if kind == "" {
		kind = KindGit
	}
	for _, k := range Kinds {
		if k.Kind == kind {
			return k
		}
	}
	return KindInfo{Kind: kind}
}

// KindInfo is p's row of Kinds (see KindOf).
func (p *Plugin) KindInfo() KindInfo { return KindOf(p.Kind) }
