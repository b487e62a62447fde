package inventory

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// SpecVersion is the CycloneDX version written.
const SpecVersion = "1.6"

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

// The CycloneDX 1.6 JSON objects written, with the specification's field
// names (cyclonedx-go's model is the reference; see doc.go).
type (
	// BOM is a CycloneDX bill of materials.
	BOM struct {
		Schema       string       `json:"$schema"`
		BOMFormat    string       `json:"bomFormat"`
		SpecVersion  string       `json:"specVersion"`
		SerialNumber string       `json:"serialNumber"`
		Version      int          `json:"version"`
		Metadata     metadata     `json:"metadata"`
		Components   []component  `json:"components"`
		Dependencies []dependency `json:"dependencies"`
	}
	metadata struct {
		Timestamp string     `json:"timestamp"`
		Tools     tools      `json:"tools"`
		Component *component `json:"component"`
	}
	tools struct {
		Components []component `json:"components"`
	}
	component struct {
		BOMRef             string        `json:"bom-ref,omitempty"`
		Type               string        `json:"type"`
		Name               string        `json:"name"`
		Version            string        `json:"version,omitempty"`
		Description        string        `json:"description,omitempty"`
		Hashes             []hash        `json:"hashes,omitempty"`
		PURL               string        `json:"purl,omitempty"`
		ExternalReferences []externalRef `json:"externalReferences,omitempty"`
		Properties         []property    `json:"properties,omitempty"`
	}
	hash struct {
		Alg     string `json:"alg"`
		Content string `json:"content"`
	}
	externalRef struct {
		URL     string `json:"url"`
		Comment string `json:"comment,omitempty"`
		Type    string `json:"type"`
	}
	property struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	dependency struct {
		Ref       string   `json:"ref"`
		DependsOn []string `json:"dependsOn"`
	}
)

// rootRef names the whole inventory, which every plugin is part of.
const rootRef = "fledge-plugins"

// New describes plugins.
func New(plugins []Plugin, o Options) *BOM {
	bom := &BOM{
		Schema: "http://cyclonedx.org/schema/bom-1.6.schema.json", BOMFormat: "CycloneDX", SpecVersion: SpecVersion,
		SerialNumber: o.Serial, Version: 1,
		Metadata: metadata{
			Timestamp: o.Now.UTC().Format(time.RFC3339),
			Tools:     tools{Components: []component{{Type: "application", Name: "fledge", Version: o.Version}}},
			Component: &component{BOMRef: rootRef, Type: "application", Name: "fledge plugins",
				Description: "the plugins installed in one fledge home"},
		},
		Components: []component{},
	}
	if bom.SerialNumber == "" {
		bom.SerialNumber = randomSerial()
	}
	sorted := append([]Plugin(nil), plugins...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Entry.Name < sorted[j].Entry.Name })
	refs := []string{}
	for _, p := range sorted {
		c := describe(p)
		bom.Components = append(bom.Components, c)
		refs = append(refs, c.BOMRef)
	}
	bom.Dependencies = []dependency{{Ref: rootRef, DependsOn: refs}}
	return bom
}

// Write encodes bom as CycloneDX JSON.
func (bom *BOM) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(bom)
}

func describe(p Plugin) component {
	e := &p.Entry
	c := component{
		BOMRef: "plugin:" + e.Name, Type: "application",
		Name: e.Name, Version: e.Version, Description: e.Description,
		PURL: purl(e),
	}
	if hex, ok := strings.CutPrefix(e.TreeHash, "fh1:"); ok && len(hex) == 64 {
		c.Hashes = []hash{{Alg: "SHA-256", Content: hex}}
	}
	if e.URL != "" && e.KindInfo().VCS {
		c.ExternalReferences = []externalRef{{URL: e.URL, Type: "vcs", Comment: "fetched at commit " + e.Commit}}
	}
	add := func(name, value string) {
		if value != "" {
			c.Properties = append(c.Properties, property{Name: "fledge:" + name, Value: value})
		}
	}
	kind := e.KindInfo().Kind
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
	add("provenance:level", e.Provenance.LevelOf())
	if e.Provenance.Signed() {
		add("provenance:signer", e.Provenance.Signer)
		add("provenance:principal", e.Provenance.Principal)
		add("provenance:format", e.Provenance.Format)
		add("provenance:vouched_by", e.Provenance.VouchedBy)
	}
	for _, cmd := range e.Commands {
		add("command", cmd)
	}
	caps := func(prefix string, cs manifest.Capabilities) {
		for _, k := range manifest.AllCapabilities {
			add(prefix+string(k), fmt.Sprint(cs.Shown(k)))
		}
	}
	caps("granted:", e.Capabilities)
	caps("requested:", e.Requested)
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
	if u, err := url.Parse(e.URL); err == nil && strings.EqualFold(u.Hostname(), "github.com") && e.KindInfo().VCS {
		segs := strings.Split(strings.Trim(strings.TrimSuffix(u.Path, ".git"), "/"), "/")
		if len(segs) == 2 && segs[0] != "" && segs[1] != "" {
			return "pkg:github/" + esc(strings.ToLower(segs[0])) + "/" + esc(strings.ToLower(segs[1])) + "@" + esc(ver)
		}
	}
	out := "pkg:generic/" + esc(e.Name)
	if e.Version != "" {
		out += "@" + esc(e.Version)
	}
	if e.URL != "" && e.KindInfo().VCS {
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
