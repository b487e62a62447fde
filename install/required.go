package install

import (
	"context"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/repourl"
)

// States of a required plugin (policy [[required]]).
const (
	RequiredOK        = "ok"        // installed at the required ref
	RequiredMissing   = "missing"   // not installed
	RequiredDrifted   = "drifted"   // installed at another ref
	RequiredInstalled = "installed" // sync installed it
	RequiredUpdated   = "updated"   // sync moved it to the required ref
	RequiredFailed    = "failed"    // sync could not
)

// RequiredResult is one required plugin's state, or what sync did.
type RequiredResult struct {
	Required policy.Required
	// Plugin is the installed plugin's name ("" when none); Ref the ref
	// it is installed at, Commit its commit.
	Plugin, Ref, Commit string
	Status              string
	Err                 error
}

// RequiredState finds the installed plugin that r names, by identity: the
// record whose fetched repository (or local directory) is r's. Registry
// names are looked up by the name recorded with the install.
func RequiredState(file *lockfile.File, r policy.Required, githubBase string) RequiredResult {
	res := RequiredResult{Required: r, Status: RequiredMissing}
	src, err := registry.ParseSource(r.Source, githubBase)
	if err != nil {
		res.Status, res.Err = RequiredFailed, &SourceError{Source: r.Source, Err: err}
		return res
	}
	for i := range file.Plugins {
		p := &file.Plugins[i]
		if !sameSource(p, src) {
			continue
		}
		res.Plugin, res.Ref, res.Commit = p.Name, p.PinnedRef, p.Commit
		res.Status = RequiredDrifted
		if p.PinnedRef == src.Ref || p.Commit == src.Ref {
			res.Status = RequiredOK
		}
		return res
	}
	return res
}

func sameSource(p *lockfile.Plugin, src registry.Source) bool {
	switch src.Kind {
	case registry.SourceName:
		return p.RegistryName != "" && p.RegistryName == src.Name
	case registry.SourceLocal:
		return p.IsLocal() && repourl.RealPath(p.Source) == repourl.RealPath(src.Path)
	}
	return p.URL != "" && repourl.Same(p.URL, registry.RedactURL(src.URL)) ||
		p.URL == "" && filepath.ToSlash(p.Source) == src.Display
}

// SyncRequired installs each required plugin that is missing and moves
// each that drifted to its required ref, granting exactly what the policy
// pre-approves (within its own ceilings: a pre-approval they forbid is
// refused) and recording the policy as the approver. One that is in place
// is left alone, so a second run changes nothing.
func (in *Installer) SyncRequired(ctx context.Context, reqs []policy.Required) []RequiredResult {
	var out []RequiredResult
	for _, r := range reqs {
		file, err := in.Store.Load()
		if err != nil {
			out = append(out, RequiredResult{Required: r, Status: RequiredFailed, Err: err})
			continue
		}
		st := RequiredState(file, r, in.GitHubBase)
		if st.Status == RequiredOK || st.Status == RequiredFailed {
			out = append(out, st)
			continue
		}
		i := *in
		i.Force = st.Status == RequiredDrifted
		grant := map[string]bool{}
		for _, g := range r.Grant {
			grant[g] = true
		}
		i.Consent = Consent{Grant: grant, By: grantlog.ConsentRequired, Unasked: "the policy's [[required]] entry approves what it lists, and nothing else"}
		res, err := i.Install(ctx, r.Source)
		if err != nil {
			st.Status, st.Err = RequiredFailed, err
			out = append(out, st)
			continue
		}
		if st.Status == RequiredDrifted {
			st.Status = RequiredUpdated
		} else {
			st.Status = RequiredInstalled
		}
		st.Plugin, st.Ref, st.Commit = res.Entry.Name, res.Entry.PinnedRef, res.Entry.Commit
		out = append(out, st)
	}
	return out
}
