package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/corvidlabs/fledge-go/runner"
)

// controlRe matches what the progress display writes besides text: line
// clearing and the cursor's visibility.
var controlRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\r|\x1b\[2K|\x1b\[\?25[lh]`) })

func TestProgressDisplay(t *testing.T) {
	t.Parallel()
	env := func(noColor string) func(string) string {
		return func(k string) string {
			if k == "NO_COLOR" {
				return noColor
			}
			return ""
		}
	}

	t.Run("off a terminal: log lines only", func(t *testing.T) {
		var plain bytes.Buffer
		u := newRunUI(&IOStreams{ErrOut: &plain, Getenv: env("")}, nil)
		u.Progress(runner.Progress{Plugin: "p", Message: "up", Determinate: true, Current: 1, Total: 2})
		u.Log("p", runner.LevelWarn, "line one\nline two")
		u.Warn("p", "careful")
		u.Progress(runner.Progress{Plugin: "p", Done: true})
		u.close()
		if want := "  WARN [p] line one\n           line two\nwarning: p: careful\n"; plain.String() != want {
			t.Errorf("off a terminal: %q, want %q", plain.String(), want)
		}
	})

	t.Run("a bar with its percentage, the cursor hidden while it shows", func(t *testing.T) {
		var tty bytes.Buffer
		u := newRunUI(&IOStreams{ErrOut: &tty, ErrTTY: true, Getenv: env("")}, nil)
		u.Progress(runner.Progress{Plugin: "p", Message: "Uploading", Determinate: true, Current: 3, Total: 10})
		u.Log("p", runner.LevelError, "boom")
		u.Progress(runner.Progress{Plugin: "p", Done: true})
		got := tty.String()
		if !strings.HasPrefix(got, hideCursor) || !strings.HasSuffix(got, "\r\x1b[2K"+showCursor) {
			t.Errorf("the cursor is not hidden first and shown last: %q", got)
		}
		if strings.Count(got, hideCursor) != 1 || strings.Count(got, showCursor) != 1 {
			t.Errorf("the cursor flickers around the log line: %q", got)
		}
		for _, want := range []string{
			"\r\x1b[2KUploading ",    // the line, redrawn in place
			"██", "░░", "  30% 3/10", // bubbles' bar, its percentage, the count
			"\r\x1b[2K  \x1b[31mERROR\x1b[0m [p] boom\n", // lifted for the log line, coloured
			"\x1b[36m", // in colour
		} {
			if !strings.Contains(got, want) {
				t.Errorf("on a terminal: %q lacks %q", got, want)
			}
		}
	})

	t.Run("monochrome under NO_COLOR", func(t *testing.T) {
		var tty bytes.Buffer
		u := newRunUI(&IOStreams{ErrOut: &tty, ErrTTY: true, Getenv: env("1")}, nil)
		u.Progress(runner.Progress{Plugin: "p", Message: "Up", Determinate: true, Current: 1, Total: 2})
		u.close()
		text := controlRe().ReplaceAllString(tty.String(), "")
		if strings.Contains(text, "\x1b") {
			t.Errorf("colour under NO_COLOR: %q", tty.String())
		}
		if !strings.Contains(text, "Up ") || !strings.Contains(text, "█░") || !strings.Contains(text, " 50% 1/2") {
			t.Errorf("no plain bar: %q", text)
		}
		if !strings.HasSuffix(tty.String(), showCursor) {
			t.Errorf("close did not show the cursor: %q", tty.String())
		}
	})

	t.Run("a spinner without a total, cleared by a pause", func(t *testing.T) {
		var tty bytes.Buffer
		u := newRunUI(&IOStreams{ErrOut: &tty, ErrTTY: true, Getenv: env("1")}, nil)
		u.Progress(runner.Progress{Plugin: "p", Message: "Thinking"})
		u.Pause()
		got := tty.String()
		if want := hideCursor + "\r\x1b[2K" + spinnerStyle.Frames[0] + " Thinking\r\x1b[2K" + showCursor; !strings.HasPrefix(got, want) {
			t.Errorf("spinner: %q, want %q", got, want)
		}
	})

	t.Run("never wider than the terminal", func(t *testing.T) {
		var tty bytes.Buffer
		u := newRunUI(&IOStreams{ErrOut: &tty, ErrTTY: true, Getenv: env("1")}, nil)
		u.Progress(runner.Progress{Plugin: "p", Message: strings.Repeat("long ", 40), Determinate: true, Current: 1, Total: 3})
		u.close()
		for _, line := range controlRe().Split(tty.String(), -1) {
			if n := len([]rune(line)); n > 79 {
				t.Errorf("a line of %d columns on an 80-column terminal: %q", n, line)
			}
		}
	})
}

func TestAnsweredLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, noColor, asker, question, answer, want string
	}{
		{"plain", "1", "", "What's your name?", "Ada", "? What's your name? Ada\n"},
		{"a plugin's", "1", "fledge-plugin-hello", "Deploy\nnow?", "Yes", "? [fledge-plugin-hello] Deploy now? Yes\n"},
		{"coloured", "", "p", "Name?", "Ada", "\x1b[32m?\x1b[0m \x1b[2m[p] \x1b[0m\x1b[1mName?\x1b[0m \x1b[36mAda\x1b[0m\n"},
		{"nothing obeyed", "1", "", "Name?", "A\x1b]2;pwned\x07da", "? Name? Ada\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "tty"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s := &IOStreams{TTYOut: f, ErrTTY: true, Getenv: func(k string) string {
				if k == "NO_COLOR" {
					return tc.noColor
				}
				return ""
			}}
			printAnswered(s, tc.asker, tc.question, tc.answer)
			got, _ := os.ReadFile(f.Name())
			if string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// Without a prompt terminal, nothing.
	printAnswered(&IOStreams{}, "", "q", "a")
}
