package fastrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/internal/redact"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// fledge's --json output, which fastrun writes too (a stored
// `plugins list --json`, and its error when stdout fails): one rendering
// and one error document for the command line and fastrun, so the two
// cannot answer differently.

// SchemaVersion is the version of every --json document fledge prints.
const SchemaVersion = 1

// CodeFailed is the error code of a failure that no particular code names.
const CodeFailed = "failed"

// JSONError is the body of a failed --json command.
type JSONError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// ErrorDoc is the whole document of a failed --json command.
type ErrorDoc struct {
	SchemaVersion int       `json:"schema_version"`
	Error         JSONError `json:"error"`
}

// FailJSON reports a failed --json command: its ErrorDoc on out (best
// effort: out may be what failed; a closed pipe ends fledge there, by
// SIGPIPE, as any write to it does) and, for a human watching, the error
// and its hint on errOut.
func FailJSON(out, errOut io.Writer, e JSONError) {
	if doc, err := RenderJSON(ErrorDoc{SchemaVersion: SchemaVersion, Error: e}); err == nil {
		_, _ = out.Write(doc)
	}
	WriteErrorText(errOut, "error:", "hint:", e)
}

// WriteErrorText shows e to a human: "<errorWord> <message>" and, when e
// has one, "<hintWord> <hint>" (the words as the caller styles them).
func WriteErrorText(w io.Writer, errorWord, hintWord string, e JSONError) {
	fmt.Fprintf(w, "%s %s\n", errorWord, e.Message)
	if e.Hint != "" {
		fmt.Fprintf(w, "%s %s\n", hintWord, e.Hint)
	}
}

// RenderJSON is v as one indented JSON document. Control characters are
// escaped by encoding/json; format characters (bidi overrides, zero-width)
// are escaped here too, so the data stays exact and a terminal showing the
// document cannot be made to reorder or hide text.
func RenderJSON(v any) ([]byte, error) {
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

// ErrorText makes error text safe to show without losing any: what a
// terminal would obey is escaped, credentials are removed.
func ErrorText(s string) string { return termsafe.EscapeText(redact.Text(s)) }

// WithoutSyscalls is err's text with the system calls named by the file
// and network errors in its chain said plainly: "lstat /x: no such file or
// directory" reads "/x: no such file or directory", and "dial tcp
// 10.0.0.1:443: connect: connection refused" reads "cannot connect to
// 10.0.0.1:443: connection refused". (Starting a program is left as it
// is: there the call is the point.)
func WithoutSyscalls(err error) string {
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
