package catalog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// FreeFormArgs is the one property of a tool whose command declares no
// args: its argv, verbatim.
const FreeFormArgs = "args"

// inputSchema builds a tool's input schema from its command's args (see
// the package doc).
func inputSchema(args []manifest.Arg) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{},
		// false: a property the command does not declare is an error, not
		// something silently dropped.
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	if len(args) == 0 {
		s.Properties[FreeFormArgs] = &jsonschema.Schema{
			Type:        "array",
			Items:       &jsonschema.Schema{Type: "string"},
			Description: freeFormDescription,
		}
		s.PropertyOrder = []string{FreeFormArgs}
		return s
	}
	for _, a := range args {
		p := &jsonschema.Schema{Type: schemaType(a.Type), Description: argDescription(a)}
		s.Properties[a.Name] = p
		s.PropertyOrder = append(s.PropertyOrder, a.Name)
		if a.Required {
			s.Required = append(s.Required, a.Name)
		}
	}
	return s
}

// argDescription is the description of a's property.
func argDescription(a manifest.Arg) string {
	d := termsafe.Text(strings.TrimSpace(a.Description))
	if schemaType(a.Type) == "string" && a.Type != "string" {
		note := fmt.Sprintf("(declared type %q, taken as a string)", termsafe.Escape(a.Type))
		d = strings.TrimSpace(d + " " + note)
	}
	return d
}

// freeFormDescription describes the one property of a free-form tool.
const freeFormDescription = "The command's arguments, passed verbatim in this order (it declares no typed arguments)."

// inputSchemaJSON is inputSchema(args) as the schema package encodes it,
// byte for byte (TestInputSchemaJSON holds it to that), written directly:
// that encoder walks every field of every schema by reflection, about
// 20 µs a tool, which `fledge mcp` paid for each tool before it could
// answer initialize (issue 24).
func inputSchemaJSON(args []manifest.Arg) json.RawMessage {
	b := []byte(`{"type":"object","properties":{`)
	if len(args) == 0 {
		b = appendString(b, FreeFormArgs)
		b = append(b, `:{"type":"array","items":{"type":"string"},"description":`...)
		b = appendString(b, freeFormDescription)
		return append(b, `}},"additionalProperties":false}`...)
	}
	var required []string
	for i, a := range args {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, a.Name)
		b = append(b, `:{"type":`...)
		b = appendString(b, schemaType(a.Type))
		if d := argDescription(a); d != "" {
			b = append(b, `,"description":`...)
			b = appendString(b, d)
		}
		b = append(b, '}')
		if a.Required {
			required = append(required, a.Name)
		}
	}
	b = append(b, '}')
	if len(required) > 0 {
		b = append(b, `,"required":[`...)
		for i, r := range required {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, r)
		}
		b = append(b, ']')
	}
	return append(b, `,"additionalProperties":false}`...)
}

// appendString appends s as encoding/json writes a string (HTML
// characters, U+2028/U+2029 and invalid UTF-8 escaped alike).
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// schemaType is the JSON Schema type of a declared arg type. Types
// fledge does not know are strings: argv is strings anyway.
func schemaType(declared string) string {
	if manifest.KnownArgTypes[declared] {
		return declared
	}
	return "string"
}
