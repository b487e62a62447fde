package cli

import (
	"fmt"
	"io"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// What audit reports for administrators of many machines: a system
// policy that is not protected.

// auditFleetChecks adds the fleet findings to doc and returns how many
// warnings they are.
func auditFleetChecks(f *Factory, file *lockfile.File, ap auditPolicy, doc *auditDoc) int {
	warnings := 0
	if ap.pol == nil {
		return 0
	}
	for _, r := range ap.pol.Required() {
		st := install.RequiredState(file, r, f.Getenv("FLEDGE_GITHUB_URL"))
		doc.Required = append(doc.Required, toRequiredJSON(st))
		if st.Status != install.RequiredOK {
			warnings++
		}
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
	for _, r := range doc.Required {
		switch r.Status {
		case install.RequiredMissing:
			fmt.Fprintf(w, "! required by the policy (%s), not installed: %s; %s puts it in place\n", r.Rule, termsafe.Escape(r.Source), commandLine("plugins", "sync", "--policy"))
		case install.RequiredDrifted:
			fmt.Fprintf(w, "! required by the policy (%s) at %s, installed as %s at %s; %s moves it\n", r.Rule, termsafe.Escape(r.Source), termsafe.Escape(r.Plugin), termsafe.Escape(r.Ref), commandLine("plugins", "sync", "--policy"))
		case install.RequiredFailed:
			if r.Error != nil {
				fmt.Fprintf(w, "! required by the policy (%s): %s: %s\n", r.Rule, termsafe.Escape(r.Source), termsafe.EscapeText(r.Error.Message))
			}
		}
	}
}
