package cli

import (
	"encoding/json"
	"fmt"
	"io"

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

// writeJSON prints v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printError reports err: a JSON document on stdout under --json (plus the
// message on stderr for humans watching), a sanitised message otherwise.
func printError(s *IOStreams, err error, asJSON bool) {
	msg := err.Error()
	hint := errorHint(err)
	if asJSON {
		_ = writeJSON(s.Out, jsonErrorDoc{SchemaVersion: SchemaVersion, Error: jsonError{
			Code: errorCode(err), Message: termsafe.Text(msg), Hint: termsafe.Text(hint),
		}})
	}
	fmt.Fprintf(s.ErrOut, "error: %s\n", termsafe.Text(msg))
	if hint != "" {
		fmt.Fprintf(s.ErrOut, "hint: %s\n", termsafe.Text(hint))
	}
}
