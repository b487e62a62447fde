package cli_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// audit --format cyclonedx writes a CycloneDX 1.6 SBOM of what is installed
// that validates against the CycloneDX JSON schema (vendored in
// inventory/testdata/cyclonedx), with each plugin's grants and hooks as
// fledge:* properties.
func TestAuditCycloneDX(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	env := map[string]string{"FLEDGE_HOME": filepath.Join(work, "fh"), "HOME": work, "NO_COLOR": "1",
		"FLEDGE_GITHUB_URL": "file://" + filepath.Join(work, "gh"), "FLEDGE_NON_INTERACTIVE": "1"}
	writeTree(t, filepath.Join(work, "gh", "acme", "fledge-plugin-inv"), map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-inv\"\nversion = \"2.0.0\"\nprotocol = \"fledge-v1\"\n\n" +
			"[[commands]]\nname = \"inv\"\nbinary = \"bin/inv\"\n\n[capabilities]\nexec = true\nstore = true\n\n[hooks]\npost_remove = \"echo bye\"\n",
		"bin/inv": "#!/bin/sh\n",
	})
	if _, err := initRepo(filepath.Join(work, "gh", "acme", "fledge-plugin-inv")); err != nil {
		t.Fatal(err)
	}
	writeTree(t, filepath.Join(work, "local"), map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-here\"\nversion = \"0.1.0\"\n\n[[commands]]\nname = \"here\"\nbinary = \"bin/here\"\n",
		"bin/here":    "#!/bin/sh\n",
	})
	for _, args := range [][]string{
		{"plugins", "install", "acme/fledge-plugin-inv", "--grant", "store,hooks"},
		{"plugins", "install", "./local", "--copy"},
	} {
		if out, code := runInProcess(t, work, env, args); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
	}
	out, code := runInProcess(t, work, env, []string{"plugins", "audit", "--format", "cyclonedx"})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}

	schema := cycloneDXSchema(t)
	var inst any
	if err := json.Unmarshal(out, &inst); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("the SBOM does not validate: %v\n%s", err, out)
	}

	var bom struct {
		Metadata struct {
			Timestamp string `json:"timestamp"`
			Tools     struct {
				Components []struct{ Name, Version string } `json:"components"`
			} `json:"tools"`
		} `json:"metadata"`
		Components []struct {
			Name, Version, Purl string
			Hashes              []struct{ Alg, Content string }
			Properties          []struct{ Name, Value string }
			ExternalReferences  []struct{ URL string } `json:"externalReferences"`
		} `json:"components"`
	}
	if err := json.Unmarshal(out, &bom); err != nil {
		t.Fatal(err)
	}
	// The formats: date-time, and iri-reference (no spaces or controls).
	if _, err := time.Parse(time.RFC3339, bom.Metadata.Timestamp); err != nil {
		t.Errorf("timestamp %q is not a date-time: %v", bom.Metadata.Timestamp, err)
	}
	refs := 0
	for _, c := range bom.Components {
		for _, r := range c.ExternalReferences {
			refs++
			if _, err := url.Parse(r.URL); err != nil || strings.ContainsFunc(r.URL, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
				t.Errorf("%s: external reference %q is not an iri-reference (%v)", c.Name, r.URL, err)
			}
		}
	}
	if refs == 0 {
		t.Errorf("no external references to check:\n%s", out)
	}
	if len(bom.Components) != 2 || bom.Metadata.Tools.Components[0].Name != "fledge" {
		t.Fatalf("%s", out)
	}
	inv := bom.Components[1]
	props := map[string]string{}
	for _, p := range inv.Properties {
		props[p.Name] = p.Value
	}
	if inv.Name != "fledge-plugin-inv" || !strings.HasPrefix(inv.Purl, "pkg:generic/fledge-plugin-inv@2.0.0?vcs_url=git%2Bfile://") || len(inv.Hashes) != 1 {
		t.Errorf("component %+v", inv)
	}
	for k, v := range map[string]string{"fledge:granted:exec": "false", "fledge:granted:store": "true", "fledge:requested:exec": "true",
		"fledge:hook:post_remove": "echo bye", "fledge:trust_tier": "unverified", "fledge:kind": "git"} {
		if props[k] != v {
			t.Errorf("%s = %q, want %q", k, props[k], v)
		}
	}

	// --json is not the SBOM's format; --log is not an SBOM.
	for _, args := range [][]string{{"plugins", "audit", "--format", "cyclonedx", "--json"}, {"plugins", "audit", "--format", "spdx"},
		{"plugins", "audit", "--format", "cyclonedx", "--log"}} {
		if _, code := runInProcess(t, work, env, args); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// cycloneDXSchema resolves the vendored CycloneDX 1.6 schema with
// google/jsonschema-go, the validator fledge itself links (for MCP). This
// package's test binary is also the fledge its tests run some 1,500 times,
// and a validator linked only for tests would run its init in every one of
// them (santhosh-tekuri/jsonschema compiles its meta-schemas at init: 3.5 ms
// of each process's 12 ms). That validator, with formats asserted, checks
// the same writer in inventory's tests; TestAuditCycloneDX checks by hand
// the formats the SBOM fills (date-time, iri-reference).
func cycloneDXSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "inventory", "testdata", "cyclonedx")
	load := func(u *url.URL) (*jsonschema.Schema, error) {
		name := path.Base(u.Path)
		if u.Host != "cyclonedx.org" || !slices.Contains([]string{"bom-1.6.schema.json", "spdx.schema.json", "jsf-0.82.schema.json"}, name) {
			return nil, fmt.Errorf("the schema refers to %s, which is not vendored", u)
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		var s jsonschema.Schema
		return &s, json.Unmarshal(data, &s)
	}
	base, err := url.Parse("http://cyclonedx.org/schema/bom-1.6.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	root, err := load(base)
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := root.Resolve(&jsonschema.ResolveOptions{BaseURI: base.String(), Loader: load})
	if err != nil {
		t.Fatal(err)
	}
	return resolved
}
