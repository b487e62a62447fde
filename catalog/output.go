package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/corvidlabs/fledge-go/manifest"
)

// setOutput reads what cmd says it prints: JSON, and the schema of it.
// It returns why a schema that does not parse or resolve keeps the tool
// from being offered (validation refuses one at install; a hand-edited
// record may still hold it), or "".
func (t *Tool) setOutput(cmd manifest.Command) string {
	t.JSONOutput = cmd.Output == manifest.OutputJSON
	if !t.JSONOutput || cmd.OutputSchema == "" {
		return ""
	}
	s := &jsonschema.Schema{}
	if err := json.Unmarshal([]byte(cmd.OutputSchema), s); err != nil {
		return fmt.Sprintf("its output_schema is not a JSON Schema: %v", err)
	}
	if s.Type != "object" {
		return `its output_schema does not describe an object ("type": "object")`
	}
	if _, err := s.Resolve(nil); err != nil {
		return fmt.Sprintf("its output_schema does not resolve: %v", err)
	}
	t.OutputSchema = s
	t.resolveOutput = sync.OnceValues(func() (*jsonschema.Resolved, error) { return s.Resolve(nil) })
	return ""
}

// ErrOutputMismatch is what Structured returns when a command's output is
// not what it declared.
var ErrOutputMismatch = errors.New("the output is not what the command declares")

// Structured is a JSON command's output as structured content: the object
// it printed, checked against its schema when it has one. It returns nil
// and no error when the command does not print JSON, or printed a JSON
// value other than an object and declared no schema (the text stands
// alone); an error wrapping ErrOutputMismatch when a declared schema is
// not met (an agent host refuses a result without the structured content
// its tool's schema promises).
func (t *Tool) Structured(output string) (map[string]any, error) {
	if !t.JSONOutput {
		return nil, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(output)))
	dec.UseNumber()
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	obj, isObj := v.(map[string]any)
	if t.OutputSchema == nil {
		if err != nil || !isObj {
			return nil, nil
		}
		return obj, nil
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: it is not one JSON value: %v", ErrOutputMismatch, err)
	case !isObj:
		return nil, fmt.Errorf("%w: it is not a JSON object", ErrOutputMismatch)
	}
	resolved, err := t.resolveOutput()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrOutputMismatch, err)
	}
	// Validate wants plain JSON values: decode again without UseNumber.
	var plain map[string]any
	_ = json.Unmarshal([]byte(output), &plain)
	if err := resolved.Validate(plain); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrOutputMismatch, err)
	}
	return plain, nil
}
