package catalog

import (
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
			Description: "The command's arguments, passed verbatim in this order (it declares no typed arguments).",
		}
		s.PropertyOrder = []string{FreeFormArgs}
		return s
	}
	for _, a := range args {
		p := &jsonschema.Schema{Type: schemaType(a.Type), Description: termsafe.Text(strings.TrimSpace(a.Description))}
		if p.Type == "string" && a.Type != "string" {
			note := fmt.Sprintf("(declared type %q, taken as a string)", termsafe.Escape(a.Type))
			p.Description = strings.TrimSpace(p.Description + " " + note)
		}
		s.Properties[a.Name] = p
		s.PropertyOrder = append(s.PropertyOrder, a.Name)
		if a.Required {
			s.Required = append(s.Required, a.Name)
		}
	}
	return s
}

// schemaType is the JSON Schema type of a declared arg type. Types
// fledge does not know are strings: argv is strings anyway.
func schemaType(declared string) string {
	if manifest.KnownArgTypes[declared] {
		return declared
	}
	return "string"
}
