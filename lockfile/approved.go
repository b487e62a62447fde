package lockfile

import "github.com/corvidlabs/fledge-go/treehash"

// ManifestEdited reports whether data, the plugin's installed plugin.toml,
// differs from the one approved at install (ManifestHash). A record
// without a hash (the Rust fledge wrote none) has nothing to compare.
func (p *Plugin) ManifestEdited(data []byte) bool {
	return p.ManifestHash != "" && treehash.FileDigest(data) != p.ManifestHash
}

// ApprovedManifest reports whether data may stand for what the plugin was
// approved with, to run it or decide its grants: the plugin.toml approved
// at install, for a copied or cloned plugin. A live link's changes by
// design and is read as it is now (its grants still come only from
// plugins.toml, so an edit there widens nothing).
func (p *Plugin) ApprovedManifest(data []byte) bool {
	return p.KindInfo().Live || !p.ManifestEdited(data)
}
