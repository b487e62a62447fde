package cli

import (
	"fmt"
	"slices"
	"strings"
)

// EnvMCPToken is the bearer token `fledge mcp --http` requires when set
// (and always with --allow-remote). Declared here, not in mcp.go: the
// environment topic lists it in a build without the agent commands too.
const EnvMCPToken = "FLEDGE_MCP_TOKEN"

// Help topics: what fledge reads from the environment, how it exits and
// what it keeps on disk. One source for `fledge help <topic>` and the
// manual's ENVIRONMENT, EXIT STATUS and FILES sections (ManSections); a
// test keeps the README's tables naming the same variables and codes.

// topicRow is one entry of a topic: a name and what it means.
type topicRow struct{ Name, Meaning string }

type helpTopic struct {
	Name, Short, Intro, Section string
	Rows                        []topicRow
}

var helpTopics = []helpTopic{
	{Name: "environment", Section: "ENVIRONMENT", Short: "Environment variables fledge reads",
		Intro: "fledge reads these environment variables:",
		Rows: []topicRow{
			{"FLEDGE_HOME", "root of all state (default <user config dir>/fledge)"},
			{"FLEDGE_NON_INTERACTIVE=1", "never prompt: questions that need a human fail (or take defaults in plugins); as --ni"},
			{"FLEDGE_GITHUB_URL", "base of owner/repo shorthand (default https://github.com)"},
			{"FLEDGE_REGISTRY_URL", "plugin index (http(s):// or file://)"},
			{"FLEDGE_GITHUB_API", "GitHub API base for search and publish (default https://api.github.com)"},
			{"FLEDGE_POLICY", "more admin policy files, separated as in PATH; they can only narrow the system policy"},
			{EnvFetchTimeout, "how long a git fetch waits for a server that sends nothing (default 60s)"},
			{EnvPromptTimeout, "how long a plugin's question waits for an answer (a duration such as 90s, or seconds)"},
			{"FLEDGE_GITHUB_TOKEN, GITHUB_TOKEN, GH_TOKEN", "the GitHub token for search, install and publish, the first one set; never printed"},
			{"NO_COLOR", "no colour (it wins over CLICOLOR_FORCE)"},
			{"CLICOLOR_FORCE=1", "colour even when the output is not a terminal (never under --json); CLICOLOR=0 turns it off"},
			{EnvConfine + "=off", "run native plugins without kernel confinement and with your whole environment; every run says so on stderr"},
			{"ACCESSIBLE=1", "questions as plain numbered lines, for screen readers; Ctrl+C leaves one as in the full-screen form"},
			{EnvMCPToken, "the bearer token fledge mcp --http requires"},
		}},
	{Name: "exit-codes", Section: "EXIT STATUS", Short: "What fledge's exit codes mean",
		Intro: "fledge exits with:",
		Rows: []topicRow{
			{fmt.Sprint(ExitOK), "success"},
			{fmt.Sprint(ExitFailure), "failure (with --json, the error's code says which)"},
			{fmt.Sprint(ExitUsage), "usage error, including an unknown command or flag"},
			{fmt.Sprint(ExitInterrupted), "interrupted (Ctrl+C, or Esc at a question)"},
			{"fledge <command>", "the plugin's own exit code (128+n if signal n ended it); 130 when Ctrl+C stopped it, 1 when --timeout did"},
		}},
	{Name: "files", Section: "FILES", Short: "What fledge keeps on disk",
		Intro: "Everything lives under $FLEDGE_HOME:",
		Rows: []topicRow{
			{"plugins.toml", "every installed plugin: source, exact revision, grants"},
			{"config.toml", "settings: trusted owners and signers, registry, install limits"},
			{"plugins/<name>/", "a plugin's installed tree"},
			{"plugins/.data/<name>/", "what fledge keeps beside it: the store (store.json), a wasm plugin's /plugin files (files/), the tree's hashes"},
			{"bin/", "a link per installed command (fledge-<command>), for PATH"},
			{"cache/", "registry and wasm caches; always safe to delete"},
			{"grants.log", "the grant log: every grant and revoke, appended"},
		}},
}

// topicText renders a topic for a terminal: its intro, then each row with
// its meaning aligned.
func topicText(t helpTopic) string {
	w := 0
	for _, r := range t.Rows {
		w = max(w, len(r.Name))
	}
	var b strings.Builder
	b.WriteString(t.Intro + "\n\n")
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "  %-*s  %s\n", w, r.Name, r.Meaning)
	}
	return b.String()
}

// findTopic is the topic named name, if any.
func findTopic(name string) (helpTopic, bool) {
	i := slices.IndexFunc(helpTopics, func(t helpTopic) bool { return t.Name == name })
	if i < 0 {
		return helpTopic{}, false
	}
	return helpTopics[i], true
}

// ManSections renders the topics as markdown sections for the root manual
// page (ENVIRONMENT, EXIT STATUS, FILES), for cmd/internal/gendocs; escape
// makes text literal in markdown.
func ManSections(escape func(string) string) string {
	var b strings.Builder
	for _, t := range helpTopics {
		fmt.Fprintf(&b, "\n\n# %s\n\n%s\n\n", t.Section, escape(t.Intro))
		for _, r := range t.Rows {
			fmt.Fprintf(&b, "- **%s**: %s\n", escape(r.Name), escape(r.Meaning))
		}
	}
	return b.String()
}
