//go:build !unix

package cli_test

import "github.com/rogpeppe/go-internal/testscript"

// Signals by pid are a Unix matter: scripts that send them do not run here.
func cmdSignalPID(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("signalpid needs Unix signals")
}

func cmdPIDGone(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("pidgone needs Unix signals")
}
