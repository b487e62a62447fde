package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"
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
	msg := withoutSyscalls(err)
	if errors.Is(err, context.Canceled) {
		msg = "interrupted" // by the user (Ctrl+C): Go's "context canceled" says nothing to them
	}
	return &jsonError{Code: errorCode(err), Message: errorText(msg), Hint: errorText(errorHint(err))}
}

// withoutSyscalls is err's text with the system calls named by the file
// and network errors in its chain said plainly: "lstat /x: no such file or
// directory" reads "/x: no such file or directory", and "dial tcp
// 10.0.0.1:443: connect: connection refused" reads "cannot connect to
// 10.0.0.1:443: connection refused". (Starting a program is left as it
// is: there the call is the point.)
func withoutSyscalls(err error) string {
	msg := err.Error()
	walkErrors(err, func(e error) {
		switch x := e.(type) {
		case *fs.PathError:
			if x.Err != nil && x.Op != "fork/exec" {
				msg = strings.Replace(msg, x.Error(), x.Path+": "+x.Err.Error(), 1)
			}
		case *net.OpError:
			if x.Op == "dial" && x.Addr != nil && x.Err != nil {
				inner := x.Err
				for errors.Unwrap(inner) != nil {
					inner = errors.Unwrap(inner)
				}
				msg = strings.Replace(msg, x.Error(), "cannot connect to "+x.Addr.String()+": "+inner.Error(), 1)
			}
		}
	})
	return msg
}

// walkErrors calls fn on err and everything it wraps, one error or several
// (fmt.Errorf with more than one %w, errors.Join).
func walkErrors(err error, fn func(error)) {
	if err == nil {
		return
	}
	fn(err)
	switch x := err.(type) {
	case interface{ Unwrap() error }:
		walkErrors(x.Unwrap(), fn)
	case interface{ Unwrap() []error }:
		for _, e := range x.Unwrap() {
			walkErrors(e, fn)
		}
	}
}

// errorText makes error text safe to show without losing any: what a
// terminal would obey is escaped, credentials are removed.
func errorText(s string) string { return termsafe.EscapeText(registry.RedactText(s)) }

// printError reports err: a JSON document on stdout under --json (plus the
// message on stderr for humans watching), a sanitised message otherwise.
func printError(s *IOStreams, err error, asJSON bool) {
	je := toJSONError(err)
	st := s.ErrStyle()
	if asJSON {
		_ = writeJSON(s.Out, jsonErrorDoc{SchemaVersion: SchemaVersion, Error: *je})
		st = Style{}
	}
	printErrorText(s.ErrOut, st, je)
}

// printErrorText shows an error and its hint to a human.
func printErrorText(w io.Writer, st Style, je *jsonError) {
	fmt.Fprintf(w, "%s %s\n", st.Error("error:"), je.Message)
	if je.Hint != "" {
		fmt.Fprintf(w, "%s %s\n", st.Info("hint:"), je.Hint)
	}
}
