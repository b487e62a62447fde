package cli

import (
	"context"
	"fmt"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// requiredJSON is one [[required]] plugin in sync --policy and audit.
type requiredJSON struct {
	Source string   `json:"source"`
	Grant  []string `json:"grant"`
	Rule   string   `json:"rule"`
	File   string   `json:"file"`
	// Plugin is the installed plugin ("" when none), Ref and Commit what
	// it is installed at.
	Plugin string `json:"plugin"`
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	// Status is ok, missing or drifted (audit); ok, installed, updated or
	// failed (sync --policy).
	Status string     `json:"status"`
	Error  *jsonError `json:"error"`
}

type syncPolicyDoc struct {
	SchemaVersion int            `json:"schema_version"`
	Action        string         `json:"action"`
	Scope         string         `json:"scope"`
	Required      []requiredJSON `json:"required"`
	Summary       map[string]int `json:"summary"`
}

func toRequiredJSON(r install.RequiredResult) requiredJSON {
	j := requiredJSON{Source: r.Required.Source, Grant: r.Required.Grant, Rule: r.Required.Rule, File: r.Required.File,
		Plugin: r.Plugin, Ref: r.Ref, Commit: r.Commit, Status: r.Status}
	if r.Err != nil {
		j.Error = &jsonError{Code: errorCode(r.Err), Message: errorText(r.Err.Error()), Hint: errorHint(r.Err)}
	}
	return j
}

// syncPolicyRun is sync --policy: the required plugins, installed or
// moved to their ref non-interactively. It exits 0 when every one is in
// place (whether or not this run changed anything), 1 when one failed.
func syncPolicyRun(ctx context.Context, f *Factory, opts *syncOptions) error {
	switch {
	case opts.File != "" || opts.Prune:
		return usageErrorf("--policy syncs the admin policy's required plugins; --file and --prune sync a plugins.toml: run them separately")
	case opts.Yes || opts.Grant != nil:
		return usageErrorf("--policy grants what the policy pre-approves, and nothing else: leave out --yes and --grant")
	}
	in, set, err := newInstaller(ctx, f, consentFlags{}, false)
	if err != nil {
		return err
	}
	in.LookupName = registryLookup(f, in.Paths, set.Config())
	reqs := set.Policy().Required()
	doc := syncPolicyDoc{SchemaVersion: SchemaVersion, Action: "sync", Scope: "policy", Required: []requiredJSON{},
		Summary: map[string]int{"total": len(reqs), install.RequiredOK: 0, install.RequiredInstalled: 0, install.RequiredUpdated: 0, install.RequiredFailed: 0}}
	failed := 0
	for _, r := range in.SyncRequired(ctx, reqs) {
		doc.Required = append(doc.Required, toRequiredJSON(r))
		doc.Summary[r.Status]++
		if r.Status == install.RequiredFailed {
			failed++
		}
		if !opts.JSON {
			line := fmt.Sprintf("%s: %s", termsafe.Escape(r.Required.Source), r.Status)
			if r.Plugin != "" {
				line += " (" + termsafe.Escape(r.Plugin) + ")"
			}
			if r.Err != nil {
				line += ": " + errorText(r.Err.Error())
			}
			fmt.Fprintln(f.IO.Out, line)
		}
	}
	if opts.JSON {
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
	} else if len(reqs) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "The admin policy requires no plugins ([[required]]).")
	}
	if failed > 0 {
		fmt.Fprintf(f.IO.ErrOut, "error: %d of %d required plugin(s) could not be put in place\n", failed, len(reqs))
		return &exitCodeError{code: ExitFailure}
	}
	return nil
}
