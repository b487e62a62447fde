package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// The approval form: what install, update, sync and grant ask a human on a
// terminal (consent from flags is decided in package install).

// askApproval shows what a plugin requests on the terminal and lets the
// user grant all, some or none of it. Hooks that must run to install it
// are marked, and the form will not accept a choice without them (it says
// so before it can be submitted); a reinstall starts from what is granted
// now. What was granted stays on screen after the form closes.
func askApproval(ctx context.Context, f *Factory, r install.Request) (install.Decision, error) {
	w := f.IO.ErrOut
	showRequest(w, r)
	if in := r.Installed; in != nil {
		fmt.Fprintf(w, "  installed now:   %s, granted %s\n", revisionText(in.Version, in.Commit), itemsText(in.Grants.Items()))
		fmt.Fprintf(w, "  replaced with:   %s\n", revisionText(r.Version, r.Commit))
	}
	if r.Provenance != nil {
		// Trust on first use: the signer this install pins is shown here.
		fmt.Fprintf(w, "  signed:          %s\n", provenanceText(r.Provenance))
		for _, n := range r.ProvenanceNotes {
			fmt.Fprintf(w, "  note:            %s\n", termsafe.EscapeText(n))
		}
	}
	review := append(hookLines("It would run:", r.Hooks), hookLines("It would also run (approved before, unchanged):", r.AlsoRuns)...)
	for _, l := range review {
		fmt.Fprintln(w, l)
	}
	chosen, err := chooseGrants(ctx, f, r, r.RequiresHooks(), review)
	if err != nil {
		return install.Decision{}, err
	}
	keep := map[manifest.Capability]bool{}
	var d install.Decision
	for it := range chosen {
		if it == install.GrantHooks {
			d.Hooks = true
		} else {
			keep[manifest.Capability(it)] = true
		}
	}
	d.Capabilities = r.Capabilities.Only(keep)
	return d, nil
}

// showRequest names the plugin a question is about.
func showRequest(w io.Writer, r install.Request) {
	fmt.Fprintf(w, "\n%s %s from %s [%s]\n", termsafe.Escape(r.Plugin), termsafe.Escape(r.Version), termsafe.Escape(r.Source), r.Tier)
	if r.Description != "" {
		fmt.Fprintf(w, "  %s\n", termsafe.Escape(r.Description))
	}
}

// hookLines lists the hooks (and build command) a grant of hooks
// approves, a line each, under title.
func hookLines(title string, hooks []install.HookItem) []string {
	if len(hooks) == 0 {
		return nil
	}
	lines := []string{title}
	escaped := false
	for _, h := range hooks {
		note := ""
		if h.Auto {
			note = " (detected build command)"
		}
		// Byte-exact, on one line: validation refused anything else.
		shown := termsafe.Escape(h.Command)
		escaped = escaped || shown != h.Command
		lines = append(lines, fmt.Sprintf("  %-16s %s%s", h.Name, shown, note))
	}
	if escaped {
		lines = append(lines, `  (shown escaped: \n is a newline, \t a tab, \\ a backslash)`)
	}
	return lines
}

// chooseGrants asks which of r's items to grant, starting from what
// r.Preselected says, and leaves a line on screen saying what was granted
// and denied. With hooksRequired, a choice without hooks is refused in the
// form, with a message saying why, before it can be submitted.
// review, what the hooks grant would run, is kept within reach of the form.
func chooseGrants(ctx context.Context, f *Factory, r install.Request, hooksRequired bool, review []string) (map[string]bool, error) {
	// Preselected items come first: huh scrolls a multi-select to its first
	// selected option, which would hide anything above it (such as exec
	// when only store is preselected).
	var items, rest []string
	for _, it := range r.Items() {
		if r.Preselected(it) {
			items = append(items, it)
		} else {
			rest = append(rest, it)
		}
	}
	defaults := make([]int, len(items))
	for i := range items {
		defaults[i] = i
	}
	items = append(items, rest...)
	options := make([]string, len(items))
	hooksAt := -1
	for i, it := range items {
		label := it
		meaning := manifest.GrantMeaning(it)
		ci, isCap := manifest.Info(manifest.Capability(it))
		switch {
		case isCap && ci.Listed():
			label = r.Capabilities.Label(ci.Name)
			meaning += " (" + envGivenBy(f, r) + ")"
		case isCap && ci.Scopes != nil:
			label = r.Capabilities.Label(ci.Name)
			if !r.Capabilities.KnownScope(ci.Name) {
				meaning = ci.UnboundedMeaning
			}
		case it == install.GrantHooks:
			hooksAt = i
			if hooksRequired {
				meaning = "REQUIRED to install: " + meaning
			}
		}
		if isCap && ci.Confinable {
			meaning += " (" + enforcedBy(f, r, ci.Name) + ")"
		}
		options[i] = fmt.Sprintf("%-12s %s", label, meaning)
	}
	desc := "Space toggles, enter confirms; unselected items are denied."
	if risky := r.UnverifiedItems(); len(risky) > 0 {
		desc = "Unverified source: review before granting " + orList(risky) + ". " + desc
	}
	var validate func([]int) error
	if hooksRequired {
		desc = "Its hooks are required to install it. " + desc
		validate = func(picked []int) error {
			if slices.Contains(picked, hooksAt) {
				return nil
			}
			return fmt.Errorf("%s cannot be installed without its hooks: select hooks, or press Ctrl+C to cancel", termsafe.Escape(r.Plugin))
		}
	}
	picked, err := f.Prompter.MultiSelect(ctx, Question{Title: "Grant " + termsafe.Escape(r.Plugin) + ":", Description: desc, Review: review}, options, defaults, validate)
	if err != nil {
		return nil, err
	}
	chosen := map[string]bool{}
	for _, i := range picked {
		if i >= 0 && i < len(items) {
			chosen[items[i]] = true
		}
	}
	// The form clears itself: leave a record of the answer.
	var granted, denied []string
	for _, it := range r.Items() {
		if chosen[it] {
			granted = append(granted, it)
		} else {
			denied = append(denied, it)
		}
	}
	line := fmt.Sprintf("✓ Granted %s: %s", termsafe.Escape(r.Plugin), itemsText(granted))
	if len(denied) > 0 {
		line += "; denied: " + strings.Join(denied, ", ")
	}
	fmt.Fprintln(f.IO.ErrOut, line)
	return chosen, nil
}

// itemsText lists grant names, or says there are none.
func itemsText(items []string) string {
	if len(items) == 0 {
		return "nothing"
	}
	return strings.Join(items, ", ")
}

// orList is "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// revisionText is "0.2.0 (commit 0123456789ab)", or the version alone.
func revisionText(version, commit string) string {
	s := termsafe.Escape(version)
	if commit != "" {
		s += " (commit " + commit[:min(12, len(commit))] + ")"
	}
	return s
}

// enforcedBy says what holds the plugin r asks for to its grant (or
// denial) of a confinable capability here: the wasm sandbox, the kernel,
// or nothing, and why: confine's answer (Support.Enforces), which audit's
// StatusOf gives too, asked before the plugin is installed, with
// confinement turned off by FLEDGE_CONFINE=off or for the plugin
// (r.Unconfined: its record's switch, or the one for every plugin).
func enforcedBy(f *Factory, r install.Request, c manifest.Capability) string {
	if r.Runtime == manifest.RuntimeWasm {
		return "enforced by the wasm sandbox"
	}
	off := unconfinedBy(f)
	if off == "" {
		off = r.Unconfined
	}
	switch ok, why := confine.Detect().Enforces(c == manifest.CapNetwork, off); {
	case ok:
		return "enforced by the kernel"
	case off != "":
		return "not enforced: confinement " + why
	default:
		return "not enforced here: " + why
	}
}

// envGivenBy says what a grant (or denial) of environment variables means
// for the plugin r asks for here: a native plugin's process gets only the
// base environment and what is granted, unless confinement is turned off
// for it; the wasm sandbox gives no environment at all.
func envGivenBy(f *Factory, r install.Request) string {
	off := unconfinedBy(f)
	if off == "" {
		off = r.Unconfined
	}
	switch {
	case r.Runtime == manifest.RuntimeWasm:
		return "the wasm sandbox gives it no environment"
	case off != "":
		return "not enforced: confinement turned off by " + off + ", so it gets your whole environment"
	}
	return "others are withheld from it"
}

// confirmProvenance asks whether to accept a revision signed at a lower
// level, or by another signer, than recorded. The answer defaults to no;
// the grant log records a yes as re-approved on a terminal, with who.
func confirmProvenance(ctx context.Context, f *Factory, e *install.ProvenanceError) (bool, error) {
	what := "a lower provenance"
	if !e.Downgrade {
		what = "another signer"
	}
	review := []string{
		"  recorded: " + provenanceText(&e.Recorded) + " (" + termsafe.Escape(e.Against) + ")",
		"  fetched:  " + provenanceText(&e.Got) + " (commit " + termsafe.Escape(e.Commit) + ")",
	}
	for _, l := range review {
		fmt.Fprintln(f.IO.ErrOut, l)
	}
	return f.Prompter.Confirm(ctx, Question{
		Title:       fmt.Sprintf("Accept %s for %s?", what, termsafe.Escape(e.Plugin)),
		Description: "Only if you know why it changed (a new release key, a release made without signing): an account takeover looks the same.",
		Review:      review,
	}, false)
}
