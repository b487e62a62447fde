package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
)

// The generator writes a man page for every command a user can type, with
// the synopsis intact, and the completion script of every shell, as
// `fledge completion <shell>` prints it.
func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	if err := generate(options{Dir: dir, Version: "9.8.7", Date: "2026-01-02T03:04:05Z", Getenv: func(string) string { return "" }}); err != nil {
		t.Fatal(err)
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

	for shell, file := range completionFiles {
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

// Generation is reproducible: SOURCE_DATE_EPOCH dates the pages.
func TestGenerateDate(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SOURCE_DATE_EPOCH": "1767225600"} // 2026-01-01
	if err := generate(options{Dir: dir, Version: "1", Getenv: func(k string) string { return env[k] }}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "man", "fledge.1"))
	if !strings.Contains(string(data), `"Jan 2026"`) {
		t.Errorf("SOURCE_DATE_EPOCH not used:\n%.200s", data)
	}
	if err := generate(options{Dir: dir, Version: "1", Date: "yesterday", Getenv: func(string) string { return "" }}); err == nil {
		t.Error("a bad -date was accepted")
	}
}

// The fledge binary does not link the man page renderer: it costs start-up
// on every invocation and is only needed here.
func TestFledgeDoesNotLinkDocs(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/corvidlabs/fledge-go/cmd/fledge").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "github.com/spf13/cobra/doc" || strings.HasPrefix(pkg, "github.com/cpuguy83/go-md2man") || strings.HasPrefix(pkg, "github.com/russross/blackfriday") {
			t.Errorf("cmd/fledge links %s", pkg)
		}
	}
}
