package cli

import (
	"github.com/corvidlabs/fledge-go/termsafe"

	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"charm.land/huh/v2"
)

func TestDarkBackground(t *testing.T) {
	for in, want := range map[string]bool{
		"":             true, // unknown: most terminals are dark
		"15;0":         true,
		"0;15":         false,
		"0;7":          false,
		"15;8":         true,
		"0;default;15": false,
		"junk":         true,
		"0;x":          true,
	} {
		if got := darkBackground(in); got != want {
			t.Errorf("darkBackground(%q) = %v, want %v", in, got, want)
		}
	}
}

// A multi-select's height counts its title and description lines, wrapped
// at the terminal's width, so that no option is hidden when it opens.
func TestTextLines(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int
		want  int
	}{
		{"", 80, 0},
		{"Grant x:", 80, 1},
		{"one\ntwo", 80, 2},
		{strings.Repeat("a", 100), 80, 2},
		{"界界界界界界界界界界", 20, 2}, // wide runes take two columns
	} {
		if got := textLines(c.text, c.width); got != c.want {
			t.Errorf("textLines(%d bytes, %d) = %d, want %d", len(c.text), c.width, got, c.want)
		}
	}
}

// A plugin's questions go through the Prompter like fledge's own, named as
// the plugin's, with a context that withdraws the question: here the
// prompt timeout ends the last one, which nobody answers, and the plugin
// gets a cancel (the terminal version is TestTerminalPromptTimeout).
func TestPluginQuestionsGoThroughThePrompter(t *testing.T) {
	t.Parallel()
	f, answers := installAsk(t)
	const asker = "fledge-plugin-ask"
	p := newMockPrompter(t,
		promptStep{kind: "input", title: "Your name?", asker: asker, answer: "Ada"},
		promptStep{kind: "confirm", title: "Deploy now?", asker: asker, answer: true},
		promptStep{kind: "select", title: "Target?", asker: asker, answer: 1},
		promptStep{kind: "input", title: "Last words?", asker: asker, withdrawn: true},
	)
	var out, errOut bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(k string) string {
		return map[string]string{"FLEDGE_HOME": f.paths.Root(), "NO_COLOR": "1", EnvPromptTimeout: "1s"}[k]
	}}
	terminal(t, s)
	fac := NewFactory(s, "test")
	fac.Prompter = p
	code := run(context.Background(), fac, []string{"ask"})
	if code != 130 || out.String() != "finished\n" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out.String(), errOut.String())
	}
	data, _ := os.ReadFile(answers)
	if want := askFirstAnswers + `{"type":"cancel","id":"4","reason":"timeout"}` + "\n"; string(data) != want {
		t.Errorf("answers:\n%s\nwant:\n%s", data, want)
	}
}

// Taking the placeholder answers with the plugin's own default, and a
// question the user abandons (Ctrl+C, Esc) stops the run as an interrupt.
func TestPluginQuestionPlaceholderAndAbandon(t *testing.T) {
	t.Parallel()
	f, answers := installAsk(t)
	const asker = "fledge-plugin-ask"
	p := newMockPrompter(t,
		promptStep{kind: "input", title: "Your name?", asker: asker}, // Enter on the placeholder
		promptStep{kind: "confirm", title: "Deploy now?", asker: asker, err: errPromptAborted},
	)
	var out, errOut bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(k string) string {
		return map[string]string{"FLEDGE_HOME": f.paths.Root(), "NO_COLOR": "1"}[k]
	}}
	terminal(t, s)
	fac := NewFactory(s, "test")
	fac.Prompter = p
	if code := run(context.Background(), fac, []string{"ask"}); code != 130 {
		t.Errorf("exit %d, stderr:\n%s", code, errOut.String())
	}
	data, _ := os.ReadFile(answers)
	if want := "{\"type\":\"response\",\"id\":\"1\",\"value\":\"world\"}\n{\"type\":\"cancel\",\"id\":\"2\",\"reason\":\"user_interrupt\"}\n"; string(data) != want {
		t.Errorf("answers:\n%s\nwant:\n%s", data, want)
	}
}

// A review page shows each line whole: wrapped, never cut, and with what a
// huh note reads as markup shown as it is.
func TestReviewPages(t *testing.T) {
	cmd := "mkdir -p bin && echo 'a_b*c`d\\e' > /dev/null && ./setup.sh --with-a-long-option-name=value"
	for _, cols := range []int{10, 54} {
		lines := hardWrap(cmd, cols)
		var joined strings.Builder
		for i, l := range lines {
			if i < len(lines)-1 && !strings.HasSuffix(l, wrapMark) {
				t.Errorf("hardWrap(%d): a broken line without the mark: %q", cols, l)
			}
			joined.WriteString(strings.TrimSuffix(l, wrapMark))
			if w := termsafe.Width(l); w > cols {
				t.Errorf("hardWrap(%d): a line of %d columns: %q", cols, w, l)
			}
		}
		if joined.String() != cmd {
			t.Errorf("hardWrap(%d) lost characters: %q", cols, lines)
		}
	}
	// A space at a break stays visible: before the mark.
	if got := hardWrap("ab cd", 4); len(got) != 2 || got[0] != "ab "+wrapMark || got[1] != "cd" {
		t.Errorf("hardWrap(\"ab cd\", 4) = %q, want [\"ab %s\" \"cd\"]", got, wrapMark)
	}
	sgr := regexp.MustCompile("\x1b\\[[0-9;]*m")
	view := sgr.ReplaceAllString(huh.NewNote().Description(noteText(cmd)).WithWidth(200).View(), "")
	if !strings.Contains(view, cmd) {
		t.Errorf("a note shows %q, want %q in it", view, cmd)
	}
	review := []string{"It would run:", "  build            " + cmd}
	pages := reviewPages(review, 60, 12)
	if want := (reviewLines(review, 60) + 5) / 6; len(pages) != want {
		t.Errorf("%d pages at 60x12, want %d (six lines a page)", len(pages), want)
	}
}
