package cli

import (
	"fmt"
	"io"
	"strings"

	"charm.land/lipgloss/v2"
)

// Style paints fledge's own marks and words for one stream, or leaves them
// plain when that stream may not carry colour (see IOStreams.colorOn).
// It paints only text fledge chose or already made safe: anything from a
// plugin or a remote is escaped before it is painted.
type Style struct{ on bool }

// The palette: the 16 basic colours, so each terminal shows them in its
// own theme and nothing needs to ask it for its background.
var (
	styleOK    = lipgloss.NewStyle().Foreground(lipgloss.Green)
	styleFail  = lipgloss.NewStyle().Foreground(lipgloss.Red)
	styleWarn  = lipgloss.NewStyle().Foreground(lipgloss.Yellow)
	styleError = lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)
	styleInfo  = lipgloss.NewStyle().Foreground(lipgloss.Cyan)
	styleBold  = lipgloss.NewStyle().Bold(true)
	styleDim   = lipgloss.NewStyle().Faint(true)
)

func (s Style) paint(st lipgloss.Style, text string) string {
	if !s.on || text == "" {
		return text
	}
	return st.Render(text)
}

// OK paints success (✓).
func (s Style) OK(text string) string { return s.paint(styleOK, text) }

// Fail paints failure (✗).
func (s Style) Fail(text string) string { return s.paint(styleFail, text) }

// Warn paints a warning.
func (s Style) Warn(text string) string { return s.paint(styleWarn, text) }

// Error paints the "error:" label.
func (s Style) Error(text string) string { return s.paint(styleError, text) }

// Info paints a change or a pointer to act on (↑, hint:).
func (s Style) Info(text string) string { return s.paint(styleInfo, text) }

// Bold paints a heading or a name.
func (s Style) Bold(text string) string { return s.paint(styleBold, text) }

// Dim paints what matters least (a skipped plugin, a header row).
func (s Style) Dim(text string) string { return s.paint(styleDim, text) }

// Tier paints a trust tier: official green, team cyan, unverified yellow,
// local dim.
func (s Style) Tier(tier string) string {
	switch tier {
	case "official":
		return s.OK(tier)
	case "team":
		return s.Info(tier)
	case "unverified":
		return s.Warn(tier)
	case "local":
		return s.Dim(tier)
	}
	return tier
}

// tableCell is one cell of a table: its plain text (already safe for a
// terminal), and how to paint it.
type tableCell struct {
	text  string
	paint func(string) string
}

// plain is a cell that is not painted.
func plain(text string) tableCell { return tableCell{text: text} }

// writeTable aligns columns by the width of their plain text, two spaces
// apart, and paints each cell after padding it, so colour never shifts a
// column (text/tabwriter would count the colour codes as width).
func writeTable(w io.Writer, rows [][]tableCell) error {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], lipgloss.Width(c.text))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			text := c.text
			if c.paint != nil {
				text = c.paint(text)
			}
			b.WriteString(text)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-lipgloss.Width(c.text)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := fmt.Fprint(w, b.String())
	return err
}
