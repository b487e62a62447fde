package cli

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
)

// IOStreams are the process's standard streams plus what fledge knows about
// them. Tests build them with bytes.Buffers and set the TTY flags directly.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY, OutTTY, ErrTTY bool

	// TTYIn and TTYOut are the terminal used for prompts (stdin and
	// stderr when they are terminals). Nil when there is none.
	TTYIn  *os.File
	TTYOut *os.File

	Getenv func(string) string

	// ForceNonInteractive is set by --non-interactive (--ni): as
	// FLEDGE_NON_INTERACTIVE=1.
	ForceNonInteractive bool

	// Plain turns colour off on both streams: set while a command prints
	// --json, whose prose on stderr stays plain too.
	Plain bool
}

// System returns the real standard streams.
func System() *IOStreams {
	s := &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		Getenv: os.Getenv,
	}
	if s.InTTY && s.ErrTTY {
		s.TTYIn, s.TTYOut = os.Stdin, os.Stderr
	}
	return s
}

// NonInteractive reports whether --ni or FLEDGE_NON_INTERACTIVE asks
// fledge never to prompt.
func (s *IOStreams) NonInteractive() bool {
	if s.ForceNonInteractive {
		return true
	}
	switch s.getenv("FLEDGE_NON_INTERACTIVE") {
	case "", "0", "false", "no":
		return false
	}
	return true
}

// noPromptReason says why fledge asks no one although it might be on a
// terminal: --ni or FLEDGE_NON_INTERACTIVE.
func noPromptReason(s *IOStreams) string {
	if s.ForceNonInteractive {
		return "--non-interactive (--ni) asks fledge not to prompt"
	}
	return "FLEDGE_NON_INTERACTIVE asks fledge not to prompt"
}

// CanPrompt reports whether a human can answer a question: stdin and stderr
// are terminals and non-interactive mode is off. Piped stdin never counts
// as consent.
func (s *IOStreams) CanPrompt() bool {
	return s.InTTY && s.ErrTTY && s.TTYIn != nil && !s.NonInteractive()
}

// ColorEnabled reports whether stdout may carry colour.
func (s *IOStreams) ColorEnabled() bool { return s.colorOn(s.OutTTY) }

// ErrColorEnabled reports whether stderr may carry colour.
func (s *IOStreams) ErrColorEnabled() bool { return s.colorOn(s.ErrTTY) }

// colorOn decides colour for a stream: never under --json, else as
// fastrun.ColourOn decides (NO_COLOR, CLICOLOR_FORCE, CLICOLOR, TERM).
// Nothing here asks the terminal anything: colours are the 16 basic ones,
// which every terminal shows in its own palette.
func (s *IOStreams) colorOn(tty bool) bool {
	return !s.Plain && fastrun.ColourOn(s.getenv, tty)
}

// OutStyle paints text for stdout; ErrStyle for stderr.
func (s *IOStreams) OutStyle() Style { return Style{on: s.ColorEnabled()} }

// ErrStyle paints text for stderr.
func (s *IOStreams) ErrStyle() Style { return Style{on: s.ErrColorEnabled()} }

// ShowProgress reports whether stderr may carry a spinner or a line
// redrawn in place: only a terminal, never under --json.
func (s *IOStreams) ShowProgress() bool {
	return s.ErrTTY && !s.Plain && s.getenv("TERM") != "dumb"
}

func (s *IOStreams) getenv(k string) string {
	if s.Getenv == nil {
		return os.Getenv(k)
	}
	return s.Getenv(k)
}
