package fastrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/runner"
)

// OutcomeWord is the first argument the split build's fledge gives
// fledge-core to report a run it started: the second is EncodeOutcome's.
const OutcomeWord = "__fledge_run_outcome"

// outcomeFormat is the version of what EncodeOutcome writes; fledge and
// fledge-core come from one build, so a mismatch is a damaged install.
const outcomeFormat = 1

type outcome struct {
	Format   int                   `json:"format"`
	Command  string                `json:"command"`
	Plugin   string                `json:"plugin"`
	Started  bool                  `json:"started"`
	ExitCode int                   `json:"exit_code"`
	Signaled bool                  `json:"signaled"`
	Denied   []manifest.Capability `json:"denied"`
	Policy   []manifest.Capability `json:"policy_denied"`
	Protocol string                `json:"protocol"`
	Source   string                `json:"source"`
	Commit   string                `json:"commit"`
	Code     string                `json:"code"`
	Error    string                `json:"error"`
	Canceled bool                  `json:"canceled"`
}

// EncodeOutcome is what Core.Report needs of a run, as one argument: the
// Result's fields and the error's code, text and whether the user's Ctrl+C
// caused it — all that the command line's report of a run reads.
func EncodeOutcome(res *runner.Result, err error) string {
	o := outcome{Format: outcomeFormat, Command: res.Command, Plugin: res.Plugin, Started: res.Started, ExitCode: res.ExitCode,
		Signaled: res.Signaled, Denied: res.Denied, Policy: res.PolicyDenied, Protocol: res.Protocol, Source: res.Source, Commit: res.Commit}
	if err != nil {
		o.Code, o.Error, o.Canceled = runner.CodeOf(err), err.Error(), errors.Is(err, context.Canceled)
	}
	b, _ := json.Marshal(o)
	return string(b)
}

// DecodeOutcome is EncodeOutcome's run back.
func DecodeOutcome(s string) (res *runner.Result, runErr, err error) {
	var o outcome
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		return nil, nil, fmt.Errorf("a run's outcome from fledge does not decode: %v", err)
	}
	if o.Format != outcomeFormat {
		return nil, nil, fmt.Errorf("a run's outcome from fledge is in format %d, not %d: fledge and fledge-core are from different builds", o.Format, outcomeFormat)
	}
	res = &runner.Result{Command: o.Command, Plugin: o.Plugin, Started: o.Started, ExitCode: o.ExitCode, Signaled: o.Signaled,
		Denied: o.Denied, PolicyDenied: o.Policy, Protocol: o.Protocol, Source: o.Source, Commit: o.Commit}
	if o.Error == "" && o.Code == "" {
		return res, nil, nil
	}
	runErr = &outcomeError{msg: o.Error, canceled: o.Canceled}
	if o.Code != "" {
		runErr = &runner.Error{Code: o.Code, Err: runErr}
	}
	return res, runErr, nil
}

// outcomeError is a run's error as EncodeOutcome carried it.
type outcomeError struct {
	msg      string
	canceled bool
}

func (e *outcomeError) Error() string { return e.msg }

func (e *outcomeError) Is(target error) bool { return e.canceled && target == context.Canceled }
