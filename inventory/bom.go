package inventory

import (
	"crypto/rand"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// SpecVersion is the CycloneDX version written.
const SpecVersion = cdx.SpecVersion1_6

// Plugin is one installed plugin as the inventory describes it.
type Plugin struct {
	Entry lockfile.Plugin
	// Tier is its trust tier, as fledge decides it now.
	Tier string
	// PolicyDenied lists what the admin policy refuses it (capabilities,
	// hooks, its source or pin).
	PolicyDenied []string
}

// Options describe the BOM itself.
type Options struct {
	// Version is fledge's version, named as the tool that wrote it.
	Version string
	// Now stamps the BOM.
	Now time.Time
	// Serial is its serial number (urn:uuid:…); empty for a random one.
	Serial string
}

// rootRef names the whole inventory, which every plugin is part of.
const rootRef = "fledge-plugins"

// BOM describes plugins.
func BOM(plugins []Plugin, o Options) *cdx.BOM {
	bom := cdx.NewBOM()
	bom.SerialNumber = o.Serial
	if bom.SerialNumber == "" {
		bom.SerialNumber = randomSerial()
	}
	bom.Metadata = &cdx.Metadata{
		Timestamp: o.Now.UTC().Format(time.RFC3339),
		Tools: &cdx.ToolsChoice{Components: &[]cdx.Component{{
			Type: cdx.ComponentTypeApplication, Name: "fledge", Version: o.Version,
		}}},
		Component: &cdx.Component{BOMRef: rootRef, Type: cdx.ComponentTypeApplication, Name: "fledge plugins",
			Description: "the plugins installed in one fledge home"},
	}
	sorted := append([]Plugin(nil), plugins...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Entry.Name < sorted[j].Entry.Name })
	components := []cdx.Component{}
	refs := []string{}
	for _, p := range sorted {
		c := component(p)
		components = append(components, c)
		refs = append(refs, c.BOMRef)
	}
	bom.Components = &components
	bom.Dependencies = &[]cdx.Dependency{{Ref: rootRef, Dependencies: &refs}}
	return bom
}

// Write encodes bom as CycloneDX JSON.
func Write(w io.Writer, bom *cdx.BOM) error {
	return cdx.NewBOMEncoder(w, cdx.BOMFileFormatJSON).SetPretty(true).SetEscapeHTML(false).EncodeVersion(bom, SpecVersion)
}

func component(p Plugin) cdx.Component {
	e := &p.Entry
	c := cdx.Component{
		BOMRef: "plugin:" + e.Name, Type: cdx.ComponentTypeApplication,
		Name: e.Name, Version: e.Version, Description: e.Description,
		PackageURL: purl(e),
	}
	if hex, ok := strings.CutPrefix(e.TreeHash, "fh1:"); ok && len(hex) == 64 {
		c.Hashes = &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: hex}}
	}
	if e.URL != "" && !e.IsLocal() {
		c.ExternalReferences = &[]cdx.ExternalReference{{URL: e.URL, Type: cdx.ERTypeVCS, Comment: "fetched at commit " + e.Commit}}
	}
	props := []cdx.Property{}
	add := func(name, value string) {
		if value != "" {
			props = append(props, cdx.Property{Name: "fledge:" + name, Value: value})
		}
	}
	kind := e.Kind
	if kind == "" {
		kind = lockfile.KindGit
	}
	add("trust_tier", p.Tier)
	add("source", e.Source)
	add("kind", kind)
	add("commit", e.Commit)
	add("pinned_ref", e.PinnedRef)
	add("ref_kind", e.RefKind)
	add("tag", e.Tag)
	add("registry_name", e.RegistryName)
	add("tree_hash", e.TreeHash)
	add("source_hash", e.SourceHash)
	add("manifest_hash", e.ManifestHash)
	add("protocol", e.Protocol)
	runtime := e.Runtime
	if runtime == "" {
		runtime = "native"
	}
	add("runtime", runtime)
	add("installed_at", e.Installed)
	for _, cmd := range e.Commands {
		add("command", cmd)
	}
	capProps := func(prefix string, caps manifest.Capabilities) {
		for _, k := range manifest.AllCapabilities {
			v := fmt.Sprint(caps.Has(k))
			if k == manifest.CapFilesystem {
				v = caps.Filesystem
				if !caps.Has(k) {
					v = "none"
				}
			}
			add(prefix+string(k), v)
		}
	}
	capProps("granted:", e.Capabilities)
	capProps("requested:", e.Requested)
	hooks := make([]string, 0, len(e.Hooks))
	for h := range e.Hooks {
		hooks = append(hooks, h)
	}
	sort.Strings(hooks)
	add("granted:hooks", fmt.Sprint(len(hooks) > 0))
	for _, h := range hooks {
		add("hook:"+h, e.Hooks[h])
	}
	add("build_command", e.BuildCommand)
	for _, d := range p.PolicyDenied {
		add("policy_denied", d)
	}
	c.Properties = &props
	return c
}

// purl is the plugin's package URL: pkg:github/owner/repo@commit for a
// GitHub repository; pkg:generic/name@version with the repository and
// commit as vcs_url for another; pkg:generic/name@version for a local one.
func purl(e *lockfile.Plugin) string {
	ver := e.Commit
	if ver == "" {
		ver = e.Version
	}
	if u, err := url.Parse(e.URL); err == nil && strings.EqualFold(u.Hostname(), "github.com") && !e.IsLocal() {
		segs := strings.Split(strings.Trim(strings.TrimSuffix(u.Path, ".git"), "/"), "/")
		if len(segs) == 2 && segs[0] != "" && segs[1] != "" {
			return "pkg:github/" + esc(strings.ToLower(segs[0])) + "/" + esc(strings.ToLower(segs[1])) + "@" + esc(ver)
		}
	}
	out := "pkg:generic/" + esc(e.Name)
	if e.Version != "" {
		out += "@" + esc(e.Version)
	}
	if e.URL != "" && !e.IsLocal() {
		vcs := "git+" + e.URL
		if e.Commit != "" {
			vcs += "@" + e.Commit
		}
		out += "?vcs_url=" + esc(vcs)
	}
	return out
}

// esc percent-encodes a purl component, keeping what the purl spec lets
// stand unencoded in one.
func esc(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == ':', c == '/':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func randomSerial() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
