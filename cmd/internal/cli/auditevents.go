package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/corvidlabs/fledge-go/events"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// eventsDoc is audit --events --json.
type eventsDoc struct {
	SchemaVersion int            `json:"schema_version"`
	Path          string         `json:"path"`
	Events        []events.Event `json:"events"`
	// Unreadable counts lines that could not be decoded.
	Unreadable int `json:"unreadable"`
}

// auditEventsRun is audit --events: the event trail, oldest first.
func auditEventsRun(f *Factory, opts *auditOptions) error {
	paths, err := f.Paths()
	if err != nil {
		return err
	}
	since, err := parseSince(opts.Since, f.Now())
	if err != nil {
		return err
	}
	log := events.New(paths.EventsFile())
	evs, bad, err := log.Read(events.Filter{Since: since, Plugin: opts.Plugin})
	if err != nil {
		return err
	}
	withUserNames(evs)
	if opts.JSON {
		return writeJSON(f.IO.Out, eventsDoc{SchemaVersion: SchemaVersion, Path: paths.EventsFile(), Events: evs, Unreadable: bad})
	}
	if len(evs) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No events.")
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	for _, e := range evs {
		exit := "-"
		if e.ExitCode != nil {
			exit = fmt.Sprint(*e.ExitCode)
		}
		who := e.Actor.User
		if e.Actor.Kind == "mcp" {
			who = strings.TrimSpace(e.Actor.Client + " " + e.Actor.ClientVersion + " (mcp)")
		}
		what := e.Outcome
		if e.Code != "" {
			what += " (" + e.Code + ")"
		}
		plugin := e.Plugin
		if e.Commit != "" {
			plugin += "@" + e.Commit[:min(12, len(e.Commit))]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\texit %s\t%s\n", e.Time.Local().Format(time.DateTime), termsafe.Escape(who), termsafe.Escape(plugin),
			termsafe.Escape(e.Command), what, exit, time.Duration(e.DurationMS)*time.Millisecond)
		for _, d := range e.Denials {
			fmt.Fprintf(tw, "\t  denied %s\t%s\n", termsafe.Escape(d.Item), termsafe.EscapeText(strings.TrimSpace(d.Rule+" "+d.File+" "+d.Reason)))
		}
	}
	tw.Flush()
	if bad > 0 {
		fmt.Fprintf(f.IO.ErrOut, "warning: %d line(s) of %s could not be read\n", bad, paths.EventsFile())
	}
	return nil
}
