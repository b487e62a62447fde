package inventory

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// schema compiles the vendored CycloneDX 1.6 JSON schema (see
// testdata/cyclonedx/README.md), formats asserted.
func schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, name := range []string{"bom-1.6.schema.json", "spdx.schema.json", "jsf-0.82.schema.json"} {
		f, err := os.Open(filepath.Join("testdata", "cyclonedx", name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("http://cyclonedx.org/schema/"+name, doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile("http://cyclonedx.org/schema/bom-1.6.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, data []byte) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(doc)
}

var plugins = []Plugin{
	{Tier: "official", Entry: lockfile.Plugin{
		Name: "fledge-plugin-deps", Version: "0.2.0", Source: "CorvidLabs/fledge-plugin-deps", Kind: lockfile.KindGit,
		URL: "https://github.com/CorvidLabs/fledge-plugin-deps", Commit: strings.Repeat("a", 40), PinnedRef: "v0.2.0",
		RefKind: "tag", Tag: "v0.2.0", TreeHash: "fh1:" + strings.Repeat("b", 64), SourceHash: "fh1:" + strings.Repeat("c", 64),
		ManifestHash: "sha256:" + strings.Repeat("d", 64), Protocol: "fledge-v1", Installed: "2026-05-01T10:00:00Z",
		Commands: []string{"deps"}, Capabilities: manifest.Capabilities{Exec: true, Store: true},
		Requested:  manifest.Capabilities{Exec: true, Store: true, Metadata: true, Filesystem: "project"},
		Hooks:      map[string]string{"build": "cargo build --release", "post_install": "echo 'done' && true"},
		Provenance: &lockfile.Provenance{Level: lockfile.LevelSignedTag, Signer: "SHA256:k", Principal: "rel@corvidlabs.example", Format: "ssh", VouchedBy: "/etc/fledge/allowed_signers"},
	}},
	{Tier: "unverified", PolicyDenied: []string{"exec"}, Entry: lockfile.Plugin{
		Name: "fledge-plugin-x", Version: "1.0.0", Source: "https://git.example.com/a b/fledge-plugin-x.git",
		URL: "https://git.example.com/a%20b/fledge-plugin-x.git", Commit: strings.Repeat("e", 40),
		Capabilities: manifest.Capabilities{Exec: true, Filesystem: "home"},
	}},
	{Tier: "local", Entry: lockfile.Plugin{Name: "fledge-plugin-here", Version: "0.0.1", Source: "/src/here", Kind: lockfile.KindLocalLink}},
}

func TestBOMValidatesAgainstTheSchema(t *testing.T) {
	s := schema(t)
	var out bytes.Buffer
	bom := New(plugins, Options{Version: "1.2.3", Now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)})
	if err := bom.Write(&out); err != nil {
		t.Fatal(err)
	}
	if err := validate(t, s, out.Bytes()); err != nil {
		t.Fatalf("the BOM does not validate: %v\n%s", err, out.Bytes())
	}
	var doc struct {
		SpecVersion  string `json:"specVersion"`
		SerialNumber string `json:"serialNumber"`
		Components   []struct {
			Name       string `json:"name"`
			Purl       string `json:"purl"`
			Hashes     []struct{ Alg, Content string }
			Properties []struct{ Name, Value string }
		} `json:"components"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SpecVersion != "1.6" || len(doc.Components) != 3 || !strings.HasPrefix(doc.SerialNumber, "urn:uuid:") {
		t.Fatalf("%+v", doc)
	}
	deps := doc.Components[0]
	if deps.Purl != "pkg:github/corvidlabs/fledge-plugin-deps@"+strings.Repeat("a", 40) {
		t.Errorf("purl %q", deps.Purl)
	}
	if len(deps.Hashes) != 1 || deps.Hashes[0].Content != strings.Repeat("b", 64) {
		t.Errorf("hashes %+v", deps.Hashes)
	}
	props := map[string]string{}
	for _, p := range deps.Properties {
		props[p.Name] = p.Value
	}
	for k, v := range map[string]string{"fledge:granted:exec": "true", "fledge:granted:metadata": "false", "fledge:requested:metadata": "true",
		"fledge:requested:filesystem": "project", "fledge:hook:build": "cargo build --release", "fledge:granted:hooks": "true",
		"fledge:trust_tier": "official", "fledge:commit": strings.Repeat("a", 40),
		"fledge:provenance:level": "signed-tag", "fledge:provenance:signer": "SHA256:k", "fledge:provenance:principal": "rel@corvidlabs.example",
		"fledge:provenance:vouched_by": "/etc/fledge/allowed_signers"} {
		if props[k] != v {
			t.Errorf("%s = %q, want %q", k, props[k], v)
		}
	}
	level := ""
	for _, p := range doc.Components[2].Properties {
		if p.Name == "fledge:provenance:level" {
			level = p.Value
		}
	}
	if level != "unsigned" {
		t.Errorf("a record never verified: fledge:provenance:level = %q, want unsigned", level)
	}
	if x := doc.Components[2]; !strings.HasPrefix(x.Purl, "pkg:generic/fledge-plugin-x@1.0.0?vcs_url=git%2Bhttps://git.example.com/a%2520b/") {
		t.Errorf("generic purl %q", x.Purl)
	}
}

// What this package writes is what cyclonedx-go, the reference model,
// reads and writes back: the same document, field for field, so nothing is
// misnamed or outside CycloneDX's model (cyclonedx-go drops what it does not
// know).
func TestBOMRoundTripsThroughCycloneDXGo(t *testing.T) {
	var ours bytes.Buffer
	if err := New(plugins, Options{Version: "1.2.3", Now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}).Write(&ours); err != nil {
		t.Fatal(err)
	}
	var model cdx.BOM
	if err := cdx.NewBOMDecoder(bytes.NewReader(ours.Bytes()), cdx.BOMFileFormatJSON).Decode(&model); err != nil {
		t.Fatal(err)
	}
	var theirs bytes.Buffer
	if err := cdx.NewBOMEncoder(&theirs, cdx.BOMFileFormatJSON).EncodeVersion(&model, cdx.SpecVersion1_6); err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(ours.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(theirs.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("cyclonedx-go reads a different document:\nours:   %s\ntheirs: %s", ours.Bytes(), theirs.Bytes())
	}
}

// The check can fail: a BOM the schema refuses is refused.
func TestSchemaRefusesABrokenBOM(t *testing.T) {
	s := schema(t)
	var out bytes.Buffer
	if err := New(plugins[:1], Options{Version: "1", Now: time.Now()}).Write(&out); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string][2]string{
		"bad hash":        {strings.Repeat("b", 64), "not-hex"},
		"unknown type":    {`"type": "application"`, `"type": "plugin"`},
		"unknown field":   {`"purl":`, `"purls":`},
		"bad spec":        {`"specVersion": "1.6"`, `"specVersion": 1.6`},
		"bad serial":      {`"serialNumber": "urn:uuid:`, `"serialNumber": "uuid:`},
		"bad timestamp":   {`"timestamp": "`, `"timestamp": "yesterday`},
		"missing version": {`"bomFormat": "CycloneDX",`, `"bomFormat": "SPDX",`},
	} {
		broken := strings.Replace(out.String(), edit[0], edit[1], 1)
		if broken == out.String() {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		if err := validate(t, s, []byte(broken)); err == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
}
