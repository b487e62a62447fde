package cli

import (
	"errors"
	"strings"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/registry"
)

// Every hint that names a command gives one that works as printed: the
// whole command line, its arguments quoted for a POSIX shell where they
// need it, with the consent a script needs (TestHintsRun runs each). A
// hint puts each command after ": " and ends it at "; " or the end.

// shellWord quotes s for sh when it holds anything but plain characters.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%_+=:,./-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// commandLine renders a fledge command line for a hint.
func commandLine(args ...string) string {
	words := make([]string, 0, len(args)+1)
	words = append(words, "fledge")
	for _, a := range args {
		words = append(words, shellWord(a))
	}
	return strings.Join(words, " ")
}

// grantList renders grant names for --grant: "exec,hooks", or "none".
func grantList(items []string) string {
	if len(items) == 0 {
		return install.GrantNone
	}
	return strings.Join(items, ",")
}

// entrySourceArg is the source that reinstalls p at the revision it was
// pinned to.
func entrySourceArg(p *lockfile.Plugin) string {
	src := registry.RedactText(p.Source)
	if p.PinnedRef != "" && !p.IsLocal() {
		src += "@" + p.PinnedRef
	}
	return src
}

// reinstallCommand reinstalls p from where it came, at its pin, keeping
// exactly what it is granted now.
func reinstallCommand(p *lockfile.Plugin) string {
	args := []string{"plugins", "install", entrySourceArg(p), "--force"}
	if flag := p.KindInfo().InstallFlag; flag != "" {
		args = append(args, flag)
	}
	g := install.Grants{Capabilities: p.Capabilities, Hooks: p.Hooks}
	return commandLine(append(args, "--grant", grantList(g.Items()))...)
}

// retryWithGrants is the command that retries what failed with ae,
// granting what was approved and what was missing by name.
func retryWithGrants(ae *install.ApprovalError, args ...string) string {
	set := map[string]bool{}
	for _, it := range append(append([]string(nil), ae.Approved...), ae.Missing...) {
		set[it] = true
	}
	return commandLine(append(args, "--grant", grantList(install.SortedGrants(set)))...)
}

// approvalHint says what approves a request that failed with ae; retry
// renders the command that retries the operation with --grant.
func approvalHint(ae *install.ApprovalError, retry func(*install.ApprovalError) string) string {
	cmd := retry(ae)
	switch ae.Cause {
	case install.NeedsName:
		return "--yes does not approve " + strings.Join(ae.Missing, ", ") + " here; review them, then grant them by name: " + cmd
	case install.HooksRequired:
		return "it cannot be installed without its hooks; to approve them: " + cmd
	}
	return "review what it requests, then approve it: " + cmd + "; or run it on a terminal to choose"
}

// withApprovalHint gives an approval failure in err the hint that retry
// renders, and returns any other error as it is.
func withApprovalHint(err error, retry func(*install.ApprovalError) string) error {
	var ae *install.ApprovalError
	if !errors.As(err, &ae) {
		return err
	}
	return withCode(CodeApprovalRequired, err, approvalHint(ae, retry))
}

// consentArgs renders the consent flags c as given.
func consentArgs(c consentFlags) []string {
	var out []string
	if c.Yes {
		out = append(out, "--yes")
	}
	if len(c.Grant) > 0 {
		out = append(out, "--grant", strings.Join(c.Grant, ","))
	}
	return out
}
