package cli

import (
	"fmt"
	"io"

	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// What `fledge plugins policy` says for administrators of many machines:
// whether the system policy is protected, and the rules that act on it.

// fleetPolicy fills doc's fleet fields from the policy in force.
func fleetPolicy(pol *policy.Set, e policy.Effective, doc *policyDoc) {
	if p := pol.SystemProtection; p != nil {
		doc.Protected = &p.Protected
		doc.UnprotectedReason = p.Reason
	}
	if r := e.ProtectRequire; r != nil {
		doc.Protection.Require = &boolSettingJSON{Value: r.Value, From: originJSON(r.From)}
	}
}

// printFleetPolicy shows the fleet fields after the rest of the policy.
func printFleetPolicy(w io.Writer, doc policyDoc) {
	if doc.Protected != nil && !*doc.Protected {
		fmt.Fprintf(w, "! the system policy is not protected (it still applies: it can only narrow): %s\n", termsafe.EscapeText(doc.UnprotectedReason))
	}
	if r := doc.Protection.Require; r != nil {
		what := "plugins run even while the system policy is not protected"
		if r.Value {
			what = "plugins do not run while the system policy is not protected"
		}
		fmt.Fprintf(w, "protection: %s (%s in %s)\n", what, r.From.Rule, termsafe.Escape(r.From.File))
	}
}
