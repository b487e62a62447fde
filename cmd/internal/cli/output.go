package cli

import (
	"context"
	"errors"
	"io"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
)

// SchemaVersion is the version of every --json document fledge prints.
const SchemaVersion = fastrun.SchemaVersion

// jsonError is the body of a failed --json command (one shape for the
// command line and fastrun).
type jsonError = fastrun.JSONError

type jsonErrorDoc = fastrun.ErrorDoc

// writeJSON prints v as one indented JSON document (fastrun.RenderJSON).
func writeJSON(w io.Writer, v any) error {
	out, err := fastrun.RenderJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// toJSONError is the {"code","message","hint"} of err: sanitised for a
// terminal and with credentials removed from any URL in it.
func toJSONError(err error) *jsonError {
	msg := fastrun.WithoutSyscalls(err)
	if errors.Is(err, context.Canceled) {
		msg = "interrupted" // by the user (Ctrl+C): Go's "context canceled" says nothing to them
	}
	return &jsonError{Code: errorCode(err), Message: errorText(msg), Hint: errorText(errorHint(err))}
}

// errorText makes error text safe to show (fastrun.ErrorText).
func errorText(s string) string { return fastrun.ErrorText(s) }

// printError reports err: a JSON document on stdout under --json (plus the
// message on stderr for humans watching), a sanitised message otherwise.
func printError(s *IOStreams, err error, asJSON bool) {
	je := toJSONError(err)
	if asJSON {
		fastrun.FailJSON(s.Out, s.ErrOut, *je)
		return
	}
	printErrorText(s.ErrOut, s.ErrStyle(), je)
}

// printErrorText shows an error and its hint to a human.
func printErrorText(w io.Writer, st Style, je *jsonError) {
	fastrun.WriteErrorText(w, st.Error("error:"), st.Info("hint:"), *je)
}
