package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// ArgumentsError is a call whose arguments do not fit the tool: nothing
// was run.
type ArgumentsError struct {
	Tool string
	Err  error
}

func (e *ArgumentsError) Error() string {
	return fmt.Sprintf("arguments for tool %s: %v", e.Tool, e.Err)
}

// Unwrap returns the underlying error.
func (e *ArgumentsError) Unwrap() error { return e.Err }

// Argv checks a call's arguments (a JSON object, or empty for none)
// against the tool's input schema and returns the command's argv (see the
// package doc). Any mismatch is an *ArgumentsError.
func (t *Tool) Argv(arguments json.RawMessage) ([]string, error) {
	fail := func(err error) ([]string, error) { return nil, &ArgumentsError{Tool: t.Name, Err: err} }
	raw := bytes.TrimSpace(arguments)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	// Validation reads the arguments as encoding/json does by default
	// (numbers as float64, which is what the schema library types);
	// argv reads numbers as the literal the caller sent.
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return fail(fmt.Errorf("not a JSON object: %v", err))
	}
	resolved, err := t.resolve()
	if err != nil {
		return fail(fmt.Errorf("the tool's input schema: %v", err))
	}
	if err := resolved.Validate(instance); err != nil {
		return fail(err)
	}
	var values map[string]json.RawMessage
	if err := json.Unmarshal(raw, &values); err != nil {
		return fail(fmt.Errorf("not a JSON object: %v", err))
	}
	if t.FreeForm {
		argv := []string{}
		if v, ok := values[FreeFormArgs]; ok {
			if err := json.Unmarshal(v, &argv); err != nil {
				return fail(fmt.Errorf("%s: %v", FreeFormArgs, err))
			}
		}
		for i, a := range argv {
			if strings.IndexByte(a, 0) >= 0 {
				return fail(fmt.Errorf("%s[%d] holds a NUL byte, which a command's arguments cannot carry", FreeFormArgs, i))
			}
		}
		return argv, nil
	}
	argv := []string{}
	held := 0 // optional args left out so far, whose places a later one needs
	for _, a := range t.Args {
		v, ok := values[a.Name]
		if !ok {
			held++
			continue
		}
		s, err := stringify(schemaType(a.Type), v)
		if err != nil {
			return fail(fmt.Errorf("%s: %v", termsafe.Escape(a.Name), err))
		}
		if strings.IndexByte(s, 0) >= 0 {
			return fail(fmt.Errorf("%s holds a NUL byte, which a command's arguments cannot carry", termsafe.Escape(a.Name)))
		}
		for ; held > 0; held-- {
			argv = append(argv, "")
		}
		argv = append(argv, s)
	}
	return argv, nil
}

// stringify turns one validated value into its argv word.
func stringify(typ string, v json.RawMessage) (string, error) {
	switch typ {
	case "string":
		var s string
		err := json.Unmarshal(v, &s)
		return s, err
	case "boolean":
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return "", err
		}
		if b {
			return "true", nil
		}
		return "false", nil
	case "integer", "number":
		var n json.Number
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if err := d.Decode(&n); err != nil {
			return "", err
		}
		if typ == "number" {
			return n.String(), nil
		}
		// 5, 5.0 and 5e0 are all the integer 5.
		r, ok := new(big.Rat).SetString(n.String())
		if !ok || !r.IsInt() {
			return "", fmt.Errorf("%s is not an integer", n)
		}
		return r.Num().String(), nil
	}
	return "", errors.New("unsupported type " + typ)
}
