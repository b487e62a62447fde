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
	return warnings
}

// printAuditFleet shows the fleet findings after the plugins.
func printAuditFleet(w io.Writer, doc *auditDoc) {
	if doc.PolicyUnprotected != nil {
		fmt.Fprintf(w, "! the system policy is not protected (it still applies: it can only narrow): %s\n", termsafe.EscapeText(*doc.PolicyUnprotected))
	}
}
