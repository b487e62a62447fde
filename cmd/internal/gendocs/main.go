// Command gendocs writes what release archives ship beside the fledge
// binary: a manual page per command (man/fledge.1,
// man/fledge-plugins-install.1, …) and the shell completion scripts
// (completions/fledge.bash, _fledge, fledge.fish, fledge.ps1), all
// generated from fledge's own command tree.
//
//	go run ./cmd/internal/gendocs -out build/docs -version 1.2.3 -date 2026-01-02T03:04:05Z
//
// It is a program of its own so that the fledge binary does not link the
// man page renderer (cobra/doc and go-md2man).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
)

type options struct {
	Dir, Version, Date string
	Getenv             func(string) string
}

func main() {
	o := options{Getenv: os.Getenv}
	flag.StringVar(&o.Dir, "out", "build/docs", "directory to write man/ and completions/ into")
	flag.StringVar(&o.Version, "version", "dev", "the fledge version the pages describe")
	flag.StringVar(&o.Date, "date", "", "the pages' date, RFC 3339 (default: SOURCE_DATE_EPOCH, else now)")
	flag.Parse()
	if err := generate(o); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// completionFiles names each shell's script as that shell looks for it.
var completionFiles = map[string]string{
	"bash":       "fledge.bash",
	"zsh":        "_fledge",
	"fish":       "fledge.fish",
	"powershell": "fledge.ps1",
}

func generate(o options) error {
	date, err := pageDate(o)
	if err != nil {
		return err
	}
	man := filepath.Join(o.Dir, "man")
	comp := filepath.Join(o.Dir, "completions")
	for _, d := range []string{man, comp} {
		// Afresh: a page of a command since renamed must not ship.
		if err := os.RemoveAll(d); err != nil {
			return err
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	header := &doc.GenManHeader{
		Title:   "FLEDGE",
		Section: "1",
		Date:    &date,
		Source:  "fledge " + o.Version,
		Manual:  "fledge manual",
	}
	root := cli.CommandTree(o.Version)
	forMarkdown(root)
	// ENVIRONMENT, EXIT STATUS and FILES: what `fledge help <topic>` says.
	root.Long += cli.ManSections(escapeMarkdown)
	if err := doc.GenManTree(root, header, man); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	if err := plainBoolFlags(man); err != nil {
		return err
	}
	// The scripts are exactly what `fledge completion <shell>` prints.
	for shell, name := range completionFiles {
		var out, errOut bytes.Buffer
		s := &cli.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut, Getenv: func(string) string { return "" }}
		if code := cli.Main([]string{"completion", shell}, s, o.Version); code != 0 {
			return fmt.Errorf("fledge completion %s: exit %d: %s", shell, code, errOut.String())
		}
		if err := os.WriteFile(filepath.Join(comp, name), out.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// plainBoolFlags takes cobra/doc's "[=false]" off every switch in the
// pages in dir: it writes --help[=false] for --help, which reads as if
// the flag took a value.
func plainBoolFlags(dir string) error {
	pages, err := filepath.Glob(filepath.Join(dir, "*.1"))
	if err != nil {
		return err
	}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, bytes.ReplaceAll(b, []byte(`\fP[=false]`), []byte(`\fP`)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// pageDate is -date, else SOURCE_DATE_EPOCH (reproducible builds), else
// now.
func pageDate(o options) (time.Time, error) {
	if o.Date != "" {
		t, err := time.Parse(time.RFC3339, o.Date)
		if err != nil {
			return time.Time{}, fmt.Errorf("-date %q: want RFC 3339, such as 2026-01-02T03:04:05Z", o.Date)
		}
		return t.UTC(), nil
	}
	if s := o.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: want seconds since 1970", s)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	return time.Now().UTC(), nil
}

// forMarkdown rewrites the help texts of the tree for cobra/doc, which
// renders them as markdown: written for a terminal, "<source>" would vanish
// as an HTML tag and aligned columns would run together. Prose paragraphs
// are escaped; paragraphs laid out by hand (indented lines, or columns
// aligned with runs of spaces) become preformatted blocks.
func forMarkdown(c *cobra.Command) {
	c.Use = escapeMarkdown(c.Use)
	c.Short = escapeMarkdown(c.Short)
	c.Long = markdownText(c.Long)
	c.Flags().VisitAll(func(f *pflag.Flag) { f.Usage = escapeMarkdown(f.Usage) })
	c.PersistentFlags().VisitAll(func(f *pflag.Flag) { f.Usage = escapeMarkdown(f.Usage) })
	for _, sub := range c.Commands() {
		forMarkdown(sub)
	}
}

func markdownText(s string) string {
	paras := strings.Split(s, "\n\n")
	for i, p := range paras {
		laidOut := false
		for _, line := range strings.Split(p, "\n") {
			if strings.HasPrefix(line, " ") || strings.Contains(strings.TrimSpace(line), "  ") {
				laidOut = true
			}
		}
		if laidOut {
			paras[i] = "    " + strings.ReplaceAll(p, "\n", "\n    ")
		} else {
			paras[i] = escapeMarkdown(p)
		}
	}
	return strings.Join(paras, "\n\n")
}

var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "<", `\<`, ">", `\>`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "#", `\#`,
)

func escapeMarkdown(s string) string { return markdownEscaper.Replace(s) }
