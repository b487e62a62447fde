package cli

import (
	"fmt"
	"io"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// What audit reports for administrators of many machines: a system
// policy that is not protected.

// auditFleetChecks adds the fleet findings to doc and returns how many
// warnings they are.
func auditFleetChecks(ap auditPolicy, doc *auditDoc) int {
	warnings := 0
	if ap.pol == nil {
		return 0
	}
	if p := ap.pol.SystemProtection; p != nil && !p.Protected {
		msg := p.Reason
		doc.PolicyUnprotected = &msg
		warnings++
	}
	for _, e := range ap.pol.RevocationErrors() {
		what := "every source is refused until it can be read ([revocation] on_error = \"closed\")"
		if e.Open {
			what = "it is ignored ([revocation] on_error = \"open\")"
		}
		doc.RevocationErrors = append(doc.RevocationErrors, errorText(e.Err.Error())+": "+what)
		warnings++
	}
	return warnings
}

// printAuditFleet shows the fleet findings after the plugins.
func printAuditFleet(w io.Writer, doc *auditDoc) {
	if doc.PolicyUnprotected != nil {
		fmt.Fprintf(w, "! the system policy is not protected (it still applies: it can only narrow): %s\n", termsafe.EscapeText(*doc.PolicyUnprotected))
	}
	for _, e := range doc.RevocationErrors {
		fmt.Fprintf(w, "! a revocation list cannot be read: %s\n", termsafe.EscapeText(e))
	}
}
