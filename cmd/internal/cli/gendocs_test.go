package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// The release-docs generator (cmd/internal/gendocs) is tested here, run as
// the program releases run, against the command tree it documents: a test
// binary of its own would link all of fledge again on every test run.

// buildGenDocs builds gendocs for t and returns a function that runs it
// with env and args.
func buildGenDocs(t *testing.T) func(env []string, args ...string) ([]byte, error) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gendocs")
	if err := testutil.BuildGo(bin, "github.com/corvidlabs/fledge-go/cmd/internal/gendocs"); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return func(env []string, args ...string) ([]byte, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, env...)
		return cmd.CombinedOutput()
	}
}

// The generator writes a man page for every command a user can type, with
// the synopsis intact, and the completion script of every shell, as
// `fledge completion <shell>` prints it.
func TestGenDocs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if out, err := buildGenDocs(t)(nil, "-out", dir, "-version", "9.8.7", "-date", "2026-01-02T03:04:05Z"); err != nil {
		t.Fatalf("gendocs: %v\n%s", err, out)
	}
	var pages int
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c.HasParent() {
			return
		}
		pages++
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		data, err := os.ReadFile(filepath.Join(dir, "man", name))
		if err != nil {
			t.Errorf("no man page for %q: %v", c.CommandPath(), err)
			return
		}
		page := string(data)
		for _, want := range []string{`.TH "FLEDGE" "1" "Jan 2026" "fledge 9.8.7"`, ".SH NAME\n" + strings.ReplaceAll(c.CommandPath(), " ", "-") + " - "} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, page)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cli.CommandTree("9.8.7"))
	if pages < 15 {
		t.Fatalf("only %d commands walked", pages)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "man"))
	if len(entries) != pages {
		t.Errorf("%d pages for %d commands", len(entries), pages)
	}
	// What markdown would have eaten survives: placeholders and the
	// columns of a laid-out paragraph.
	install, _ := os.ReadFile(filepath.Join(dir, "man", "fledge-plugins-install.1"))
	if !strings.Contains(string(install), `fledge plugins install <source>\&... [flags]`) {
		t.Errorf("install's synopsis lost its <source>:\n%s", install)
	}
	root, _ := os.ReadFile(filepath.Join(dir, "man", "fledge.1"))
	if !strings.Contains(string(root), "fledge-plugin-<name>") || !strings.Contains(string(root), "Its arguments and grants:               fledge help <command>") {
		t.Errorf("fledge.1 lost text:\n%s", root)
	}
	// The sections `fledge help <topic>` prints, from the same source.
	for _, want := range []string{".SH ENVIRONMENT", "FLEDGE_PROMPT_TIMEOUT", "ACCESSIBLE=1", ".SH EXIT STATUS", "130", ".SH FILES", "plugins.toml"} {
		if !strings.Contains(string(root), want) {
			t.Errorf("fledge.1 lacks %q", want)
		}
	}
	// A switch reads as one, not as a flag taking "false".
	files, _ := filepath.Glob(filepath.Join(dir, "man", "*.1"))
	for _, p := range files {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "[=false]") {
			t.Errorf("%s shows a switch as --flag[=false]", filepath.Base(p))
		}
	}

	for shell, file := range map[string]string{"bash": "fledge.bash", "zsh": "_fledge", "fish": "fledge.fish", "powershell": "fledge.ps1"} {
		data, err := os.ReadFile(filepath.Join(dir, "completions", file))
		if err != nil || len(data) < 500 {
			t.Errorf("%s completion: %v (%d bytes)", shell, err, len(data))
		}
	}
	bash, _ := os.ReadFile(filepath.Join(dir, "completions", "fledge.bash"))
	if !strings.Contains(string(bash), "plain bash (without the bash-completion package)") {
		t.Error("the bash script lacks its plain-bash word splitter")
	}
}

// Generation is reproducible: SOURCE_DATE_EPOCH dates the pages; a bad
// -date is refused.
func TestGenDocsDate(t *testing.T) {
	t.Parallel()
	genDocs := buildGenDocs(t)
	dir := t.TempDir()
	if out, err := genDocs([]string{"SOURCE_DATE_EPOCH=1767225600"}, "-out", dir, "-version", "1"); err != nil { // 2026-01-01
		t.Fatalf("gendocs: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "man", "fledge.1"))
	if !strings.Contains(string(data), `"Jan 2026"`) {
		t.Errorf("SOURCE_DATE_EPOCH not used:\n%.200s", data)
	}
	if out, err := genDocs(nil, "-out", dir, "-version", "1", "-date", "yesterday"); err == nil {
		t.Errorf("a bad -date was accepted:\n%s", out)
	}
}
