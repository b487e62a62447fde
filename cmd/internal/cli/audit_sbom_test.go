package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
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

	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, name := range []string{"bom-1.6.schema.json", "spdx.schema.json", "jsf-0.82.schema.json"} {
		f, err := os.Open(filepath.Join("..", "..", "..", "inventory", "testdata", "cyclonedx", name))
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
	schema, err := c.Compile("http://cyclonedx.org/schema/bom-1.6.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("the SBOM does not validate: %v\n%s", err, out)
	}

	var bom struct {
		Metadata struct {
			Tools struct {
				Components []struct{ Name, Version string } `json:"components"`
			} `json:"tools"`
		} `json:"metadata"`
		Components []struct {
			Name, Version, Purl string
			Hashes              []struct{ Alg, Content string }
			Properties          []struct{ Name, Value string }
		} `json:"components"`
	}
	if err := json.Unmarshal(out, &bom); err != nil {
		t.Fatal(err)
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
