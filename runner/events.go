package runner

import (
	"errors"
	"fmt"
	"time"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/events"
	"github.com/corvidlabs/fledge-go/lockfile"
)

// record writes the run to the event trail: who asked, what ran (or was
// refused) under which policy, how it ended and what was denied. A trail
// that cannot be written is warned about; the run's outcome stands.
//
// A command no installed plugin provides is not a run (the command layer
// may go on to a fledge-<name> program on PATH): it is not recorded.
func (r *Runner) record(req Request, res *Result, err error, took time.Duration) {
	if r.Events == nil || res == nil || res.Plugin == "" {
		return
	}
	e := events.Event{Kind: events.KindRun, Plugin: res.Plugin, Commit: res.Commit, Command: req.Command, Actor: r.Actor,
		DurationMS: took.Milliseconds(), Denials: []events.Denial{}}
	if req.Actor != nil {
		e.Actor = *req.Actor
	}
	if e.Actor.Kind == "mcp" {
		e.Kind = events.KindToolCall
	}
	if res.Started {
		code := res.ExitCode
		e.ExitCode = &code
	}
	t := res.target
	e.Code = CodeOf(err)
	switch {
	case err == nil && res.Success():
		e.Outcome = events.OutcomeOK
	case e.Code == CodePolicyDenied || e.Code == CodePluginDisabled:
		e.Outcome = events.OutcomeDenied
	default:
		e.Outcome = events.OutcomeFailed
	}
	var dis *lockfile.DisabledError
	switch {
	case errors.As(err, &dis):
		e.Denials = append(e.Denials, events.Denial{Item: "disabled", Reason: "disabled by " + dis.By})
	case t != nil && t.sourceDenial != nil:
		d := t.sourceDenial
		e.Denials = append(e.Denials, events.Denial{Item: d.Item, Rule: d.Rule, File: d.File, Reason: d.Reason})
	case e.Code == CodePolicyDenied && err != nil:
		e.Denials = append(e.Denials, events.Denial{Item: "policy", Reason: err.Error()})
	}
	for _, c := range res.Denied {
		d := events.Denial{Item: string(c), Reason: "not granted in plugins.toml"}
		if t != nil {
			if pd, ok := t.policy[c]; ok {
				d = events.Denial{Item: string(c), Rule: pd.Rule, File: pd.File, Reason: pd.Reason}
			}
		}
		e.Denials = append(e.Denials, d)
	}
	if pol := r.Settings.Policy(); !pol.Empty() {
		p := &events.Policy{ID: pol.Digest(), Files: []string{}}
		for _, l := range pol.Layers() {
			p.Files = append(p.Files, l.Where())
		}
		e.Policy = p
	}
	if t != nil && t.Manifest != nil {
		e.Confinement = r.confinementText(t)
	}
	if werr := r.Events.Append(e); werr != nil && r.UI != nil {
		r.UI.Warn(res.Plugin, fmt.Sprintf("the event trail could not record this run: %v", werr))
	}
}

// confinementText is how the kernel holds t's own code, in a few words,
// as audit, info and list say it (confine.StatusOf).
func (r *Runner) confinementText(t *Target) string {
	if t.Manifest.IsWasm() {
		return "wasm sandbox"
	}
	g := t.Grants()
	st := confine.StatusOf(t.Manifest.Capabilities.Filesystem, confine.Grants{Filesystem: g.Filesystem, Network: g.Network}, supportOf(), r.unconfined(t))
	if st.Enforced {
		return "kernel: " + st.Reach()
	}
	return "not confined: " + st.Reason
}
