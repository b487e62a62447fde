package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/inventory"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
	"github.com/corvidlabs/fledge-go/trust"
)

// What audit offers administrators: the grant log (--log, --verify-log),
// a CI gate (--strict) and a fleet inventory (--format cyclonedx).

// auditAdmin are audit's flags for administrators.
type auditAdmin struct {
	Log       bool
	Since     string
	Plugin    string
	VerifyLog bool
	Strict    bool
	Format    string
	// Events reads the event trail (auditevents.go).
	Events bool
}

func (a *auditAdmin) register(fl *pflag.FlagSet) {
	fl.BoolVar(&a.Log, "log", false, "show the grant log: every install, update, sync, grant, revoke, remove and run-time policy denial")
	fl.StringVar(&a.Since, "since", "", "with --log: only records newer than a duration (72h, 7d) or a date (2026-05-01, RFC 3339)")
	fl.StringVar(&a.Plugin, "plugin", "", "with --log: only records about this plugin")
	fl.BoolVar(&a.VerifyLog, "verify-log", false, "check the grant log's hash chain: name any record edited, removed or reordered")
	fl.BoolVar(&a.Strict, "strict", false, "exit 1 when any warning stands (a plugin's, the grant log's or the policy's)")
	fl.StringVar(&a.Format, "format", "", "cyclonedx: write a CycloneDX 1.6 SBOM of the installed plugins")
	fl.BoolVar(&a.Events, "events", false, "show the event trail: every plugin run and MCP tool call, and what was denied (with --since and --plugin)")
}

// check refuses flags that do not go together.
func (a *auditAdmin) check(asJSON bool) error {
	switch {
	case a.Format != "" && a.Format != "cyclonedx":
		return usageErrorf("--format %q: the only format is cyclonedx (leave it out for the audit itself)", a.Format)
	case a.Format != "" && (a.Log || a.VerifyLog || a.Strict):
		return usageErrorf("--format cyclonedx writes an SBOM; run --log, --verify-log and --strict separately")
	case a.Format != "" && asJSON:
		return usageErrorf("--format cyclonedx writes CycloneDX JSON already; leave out --json")
	case a.Events && (a.Log || a.VerifyLog || a.Strict || a.Format != ""):
		return usageErrorf("--events reads the event trail; run --log, --verify-log, --strict and --format separately")
	case (a.Since != "" || a.Plugin != "") && !a.Log && !a.Events:
		return usageErrorf("--since and --plugin select grant log records (--log) or events (--events): add one")
	case a.Log && a.Strict:
		return usageErrorf("--strict checks the audit's warnings; run it without --log")
	}
	return nil
}

// auditPolicy is what the audit needs of the admin policy: the policy
// (nil when it cannot be read) and why it cannot be.
type auditPolicy struct {
	pol *policy.Set
	err error
}

// loadAuditSettings reads the settings; a policy that cannot be read is
// a finding of the audit, not its failure.
func loadAuditSettings(f *Factory, paths home.Paths) (*settings.Settings, auditPolicy, error) {
	set, polErr, err := describeSettings(f, paths)
	if err != nil {
		return nil, auditPolicy{}, err
	}
	if polErr == nil {
		if set, err = refreshRevocations(context.Background(), f, paths, set); err != nil {
			return nil, auditPolicy{}, err
		}
	}
	return set, auditPolicy{pol: set.Policy(), err: polErr}, nil
}

// policyWarnings says what the policy now refuses of an installed plugin.
func policyWarnings(ap auditPolicy, p *lockfile.Plugin, tier trust.Tier) (warnings, items []string) {
	for _, d := range install.PolicyFindings(ap.pol, p, tier) {
		var w string
		switch d.Item {
		case "source":
			w = "the admin policy denies its source, so it does not run"
		case "pin":
			w = "the admin policy no longer allows the ref it follows, so update refuses it"
		case policy.ItemProvenance:
			w = "the admin policy requires a signature its installed revision lacks, so update and sync refuse it until a signed one is released"
		case install.GrantHooks:
			w = "its approved hooks may not run under the admin policy"
		default:
			w = d.Item + " is granted, but the admin policy denies it when the plugin asks"
		}
		warnings = append(warnings, "policy: "+w+": "+d.Text())
		items = append(items, d.Item)
	}
	return warnings, items
}

// grantLogJSON is what --verify-log (and the audit) says of the grant log.
type grantLogJSON struct {
	Path     string        `json:"path"`
	OK       bool          `json:"ok"`
	Records  int           `json:"records"`
	Pending  int           `json:"pending"`
	Anchored bool          `json:"anchored"`
	Problems []problemJSON `json:"problems"`
}

type problemJSON struct {
	Kind    string `json:"kind"`
	Line    int    `json:"line"`
	Record  int64  `json:"record"`
	Message string `json:"message"`
}

// verifyGrantLog checks the grant log against plugins.toml's anchor.
func verifyGrantLog(paths home.Paths, file *lockfile.File) (grantLogJSON, error) {
	rep, err := grantlog.VerifyFile(paths.GrantLog(), file)
	if err != nil {
		return grantLogJSON{}, err
	}
	j := grantLogJSON{Path: paths.GrantLog(), OK: rep.OK(), Records: rep.Records, Pending: rep.Pending,
		Anchored: rep.Anchored, Problems: []problemJSON{}}
	for _, p := range rep.Problems {
		j.Problems = append(j.Problems, problemJSON{Kind: p.Kind, Line: p.Line, Record: p.Record, Message: p.Message})
	}
	return j, nil
}

func printGrantLogCheck(w io.Writer, g grantLogJSON) {
	if g.OK {
		anchored := "anchored in plugins.toml"
		if !g.Anchored {
			anchored = "empty"
		}
		fmt.Fprintf(w, "grant log %s: %d records, chain intact, %s\n", termsafe.Escape(g.Path), g.Records, anchored)
		if g.Pending > 0 {
			fmt.Fprintf(w, "  %d record(s) of a change that never landed follow; the next change discards them\n", g.Pending)
		}
		return
	}
	fmt.Fprintf(w, "grant log %s: %d problem(s) in %d records\n", termsafe.Escape(g.Path), len(g.Problems), g.Records)
	for _, p := range g.Problems {
		fmt.Fprintf(w, "  ! %s: %s\n", p.Kind, termsafe.EscapeText(p.Message))
	}
}

// logDoc is audit --log (and --verify-log) --json.
type logDoc struct {
	SchemaVersion int                `json:"schema_version"`
	Records       *[]grantlog.Record `json:"records,omitempty"`
	// Unreadable counts committed lines that are not records (see
	// --verify-log).
	Unreadable *int          `json:"unreadable,omitempty"`
	GrantLog   *grantLogJSON `json:"grant_log,omitempty"`
}

// auditLogRun is audit --log and --verify-log.
func auditLogRun(f *Factory, opts *auditOptions) error {
	store, paths, err := f.Lockfile()
	if err != nil {
		return err
	}
	file, err := store.Load()
	if err != nil {
		return err
	}
	doc := logDoc{SchemaVersion: SchemaVersion}
	var failed bool
	if opts.VerifyLog {
		g, err := verifyGrantLog(paths, file)
		if err != nil {
			return err
		}
		doc.GrantLog, failed = &g, !g.OK
		if !opts.JSON {
			printGrantLogCheck(f.IO.Out, g)
		}
	}
	if opts.Log {
		since, err := parseSince(opts.Since, f.Now())
		if err != nil {
			return err
		}
		recs := []grantlog.Record{}
		bad, err := grantlog.Read(paths.GrantLog(), file.GrantLog, func(r grantlog.Record) error {
			if r.Time.Before(since) || (opts.Plugin != "" && r.Plugin != "" && r.Plugin != opts.Plugin && lockfile.ShortName(r.Plugin) != lockfile.ShortName(opts.Plugin)) {
				return nil
			}
			recs = append(recs, r)
			return nil
		})
		if err != nil {
			return err
		}
		doc.Records, doc.Unreadable = &recs, &bad
		if !opts.JSON {
			printLog(f, recs, bad)
		}
	}
	if opts.JSON {
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
	}
	if failed {
		fmt.Fprintln(f.IO.ErrOut, "error: the grant log does not verify")
		return &exitCodeError{code: ExitFailure}
	}
	return nil
}

// parseSince reads --since: a duration back from now, or a date.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := policy.ParseAge(s); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usageErrorf("--since %q: want a duration (72h, 7d) or a date (2026-05-01, or RFC 3339)", s)
}

func printLog(f *Factory, recs []grantlog.Record, bad int) {
	w := f.IO.Out
	if len(recs) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No grant log records.")
	}
	for _, r := range recs {
		who := r.User
		if who == "" {
			who = "uid"
		}
		plugin := termsafe.Escape(r.Plugin)
		if r.Plugin == "" { // a switch for every plugin (unconfine --all)
			plugin = "(every plugin)"
		}
		fmt.Fprintf(w, "#%d %s %s %s by %s (uid %d)\n", r.Seq, r.Time.UTC().Format(time.RFC3339), r.Action,
			plugin, termsafe.Escape(who), r.UID)
		if r.Version != "" || r.Commit != "" {
			fmt.Fprintf(w, "  %s\n", revisionText(r.Version, r.Commit))
		}
		if r.Source != "" {
			fmt.Fprintf(w, "  source:  %s (%s)\n", termsafe.Escape(r.Source), r.Tier)
		}
		if len(r.Granted) > 0 {
			var parts []string
			for _, it := range r.Granted {
				parts = append(parts, it+" ("+r.Consent[it]+")")
			}
			fmt.Fprintf(w, "  granted: %s\n", strings.Join(parts, ", "))
		}
		if len(r.Removed) > 0 {
			var parts []string
			for _, it := range r.Removed {
				if how := r.Consent[it]; how != "" {
					it += " (" + how + ")"
				}
				parts = append(parts, it)
			}
			fmt.Fprintf(w, "  removed: %s\n", strings.Join(parts, ", "))
		}
		var kept []string
		for _, it := range (install.Grants{Capabilities: r.Capabilities, Hooks: r.Hooks}).Items() {
			if !slices.Contains(r.Granted, it) {
				kept = append(kept, it)
			}
		}
		if len(kept) > 0 && r.Action != grantlog.ActionPolicyDenial {
			fmt.Fprintf(w, "  kept:    %s\n", strings.Join(kept, ", "))
		}
		for _, p := range r.Policy {
			fmt.Fprintf(w, "  policy:  %s: %s in %s %s\n", p.Item, p.Rule, termsafe.Escape(p.File), termsafe.EscapeText(p.Reason))
		}
		if r.Note != "" {
			fmt.Fprintf(w, "  note:    %s\n", termsafe.EscapeText(r.Note))
		}
		if r.LogBreak != "" {
			fmt.Fprintf(w, "  ! the log was altered before this record: %s\n", termsafe.EscapeText(r.LogBreak))
		}
	}
	if bad > 0 {
		fmt.Fprintf(f.IO.ErrOut, "warning: %d line(s) of the grant log are not records; see: %s\n", bad, commandLine("plugins", "audit", "--verify-log"))
	}
}

// auditSBOMRun is audit --format cyclonedx.
func auditSBOMRun(f *Factory, opts *auditOptions) error {
	file, _, paths, err := loadState(f)
	if err != nil {
		return err
	}
	set, ap, err := loadAuditSettings(f, paths)
	if err != nil {
		return err
	}
	if ap.err != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", errorText(ap.err.Error()))
	}
	noteTrust(f.IO.ErrOut, set)
	plugins, err := namedPlugins(file, opts.Names)
	if err != nil {
		return err
	}
	var inv []inventory.Plugin
	for _, p := range plugins {
		tier := set.Tier(p)
		_, denied := policyWarnings(ap, p, tier)
		inv = append(inv, inventory.Plugin{Entry: *p, Tier: string(tier), PolicyDenied: denied})
	}
	return inventory.New(inv, inventory.Options{Version: f.Version, Now: f.Now()}).Write(f.IO.Out)
}

// auditAdminChecks adds to a plugin audit what administrators need: the
// policy's findings for each plugin and the grant log's state. It returns
// the warnings that stand, for --strict.
func auditAdminChecks(paths home.Paths, file *lockfile.File, ap auditPolicy, set *settings.Settings, doc *auditDoc) int {
	warnings := 0
	if ap.err != nil {
		msg := errorText(ap.err.Error())
		doc.PolicyError = &msg
		warnings++
	}
	for i := range doc.Audit {
		a := &doc.Audit[i]
		p, ok := file.Get(a.Name)
		if !ok {
			continue
		}
		w, items := policyWarnings(ap, p, set.Tier(p))
		a.Warnings = append(a.Warnings, w...)
		a.PolicyDenied = append(a.PolicyDenied, items...)
		warnings += len(a.Warnings)
	}
	if g, err := verifyGrantLog(paths, file); err == nil {
		doc.GrantLog = &g
		warnings += len(g.Problems)
	} else {
		doc.GrantLog = &grantLogJSON{Path: paths.GrantLog(), Problems: []problemJSON{{Kind: "unreadable", Message: errorText(err.Error())}}}
		warnings++
	}
	return warnings
}

// printAuditAdmin shows, after the plugins, what is wrong with the policy
// and the grant log.
func printAuditAdmin(w io.Writer, doc *auditDoc) {
	if doc.PolicyError != nil {
		fmt.Fprintf(w, "! the admin policy cannot be read: %s\n", *doc.PolicyError)
	}
	if g := doc.GrantLog; g != nil && len(g.Problems) > 0 {
		fmt.Fprintf(w, "! the grant log does not verify (%d problem(s)): see %s\n", len(g.Problems), commandLine("plugins", "audit", "--verify-log"))
	}
}
