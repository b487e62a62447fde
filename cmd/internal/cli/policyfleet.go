package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// What `fledge plugins policy` says for administrators of many machines:
// whether the system policy is protected, and the rules that act on it.

// revocationListJSON is one revocation list a policy names.
type revocationListJSON struct {
	List string `json:"list"`
	// TTL is how long a URL's cached copy is used before it is fetched
	// again ("" for a file).
	TTL     string     `json:"ttl"`
	OnError string     `json:"on_error"`
	From    originJSON `json:"from"`
}

// dropInJSON is one drop-in policy file and whether it is protected.
type dropInJSON struct {
	File              string `json:"file"`
	Protected         bool   `json:"protected"`
	UnprotectedReason string `json:"unprotected_reason"`
}

// fleetPolicy fills doc's fleet fields from the policy in force.
func fleetPolicy(pol *policy.Set, e policy.Effective, doc *policyDoc) {
	doc.Required = []requiredJSON{}
	for _, r := range pol.Required() {
		doc.Required = append(doc.Required, requiredJSON{Source: r.Source, Grant: r.Grant, Rule: r.Rule, File: r.File})
	}
	doc.Revocation.Lists, doc.Revocation.Revoked, doc.Revocation.Errors = []revocationListJSON{}, []revokedJSON{}, []string{}
	for _, l := range pol.RevocationSources() {
		j := revocationListJSON{List: l.List, OnError: l.OnError, From: originJSON(l.Origin)}
		if l.URL {
			j.TTL = policy.FormatAge(l.TTL)
		}
		doc.Revocation.Lists = append(doc.Revocation.Lists, j)
	}
	for _, r := range pol.Revocations() {
		doc.Revocation.Revoked = append(doc.Revocation.Revoked, revokedJSON{Source: r.Source, Commit: r.Commit, Reason: r.Reason, Issuer: r.Issuer, Date: r.Date, List: r.List})
	}
	for _, err := range pol.RevocationErrors() {
		doc.Revocation.Errors = append(doc.Revocation.Errors, errorText(err.Err.Error()))
	}
	doc.DropIns, doc.DropInsIgnored = []dropInJSON{}, []string{}
	for _, d := range pol.DropIns {
		doc.DropIns = append(doc.DropIns, dropInJSON{File: d.File, Protected: d.Protection.Protected, UnprotectedReason: d.Protection.Reason})
	}
	doc.DropInsIgnored = append(doc.DropInsIgnored, pol.DropInsIgnored...)
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
	for _, p := range doc.DropInsIgnored {
		fmt.Fprintf(w, "! %s is not read: only *.toml files in %s are policy\n", termsafe.Escape(p), policy.DropInDirName)
	}
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
	for _, r := range doc.Required {
		grants := "nothing"
		if len(r.Grant) > 0 {
			grants = strings.Join(r.Grant, ", ")
		}
		fmt.Fprintf(w, "required: %s, pre-approved %s (%s in %s)\n", termsafe.Escape(r.Source), grants, r.Rule, termsafe.Escape(r.File))
	}
	for _, l := range doc.Revocation.Lists {
		fmt.Fprintf(w, "revocation list: %s (on_error %s; %s in %s)\n", termsafe.Escape(l.List), l.OnError, l.From.Rule, termsafe.Escape(l.From.File))
	}
	if n := len(doc.Revocation.Revoked); n > 0 {
		fmt.Fprintf(w, "revoked: %d entr%s\n", n, map[bool]string{true: "y", false: "ies"}[n == 1])
	}
	for _, e := range doc.Revocation.Errors {
		fmt.Fprintf(w, "! a revocation list cannot be read: %s\n", termsafe.EscapeText(e))
	}
}
