package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// SchemaVersion is the version of every --json document fledge prints.
const SchemaVersion = 1

// jsonError is the body of a failed --json command.
type jsonError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

type jsonErrorDoc struct {
	SchemaVersion int       `json:"schema_version"`
	Error         jsonError `json:"error"`
}

// writeJSON prints v as one indented JSON document. Control characters
// are escaped by encoding/json; format characters (bidi overrides,
// zero-width) are escaped here too, so the data stays exact and a terminal
// showing the document cannot be made to reorder or hide text.
func writeJSON(w io.Writer, v any) error {
	out, err := renderJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// renderJSON is the document writeJSON prints.
func renderJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return escapeFormatRunes(buf.Bytes()), nil
}

// escapeFormatRunes rewrites invisible format runes as \uXXXX escapes. In a
// JSON document such runes can only occur inside strings, where the escape
// means the same character.
func escapeFormatRunes(b []byte) []byte {
	// Every rune needsEscape matches is outside ASCII: a document that is
	// all ASCII (the usual case) is returned after one cheap byte scan.
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	if i == len(b) || !bytes.ContainsFunc(b[i:], needsEscape) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for _, r := range string(b) {
		if needsEscape(r) {
			fmt.Fprintf(&out, "\\u%04x", r)
			continue
		}
		out.WriteRune(r)
	}
	return out.Bytes()
}

// needsEscape: encoding/json escapes what is below 0x80 itself.
func needsEscape(r rune) bool { return r >= utf8.RuneSelf && termsafe.IsUnsafe(r) }

// toJSONError is the {"code","message","hint"} of err: sanitised for a
// terminal and with credentials removed from any URL in it.
func toJSONError(err error) *jsonError {
	return &jsonError{Code: errorCode(err), Message: errorText(err.Error()), Hint: errorText(errorHint(err))}
}

// errorText makes error text safe to show without losing any: what a
// terminal would obey is escaped, credentials are removed.
func errorText(s string) string { return termsafe.EscapeText(registry.RedactText(s)) }

// printError reports err: a JSON document on stdout under --json (plus the
// message on stderr for humans watching), a sanitised message otherwise.
func printError(s *IOStreams, err error, asJSON bool) {
	je := toJSONError(err)
	if asJSON {
		_ = writeJSON(s.Out, jsonErrorDoc{SchemaVersion: SchemaVersion, Error: *je})
	}
	fmt.Fprintf(s.ErrOut, "error: %s\n", je.Message)
	if je.Hint != "" {
		fmt.Fprintf(s.ErrOut, "hint: %s\n", je.Hint)
	}
}
