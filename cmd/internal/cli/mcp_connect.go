//go:build !fledge_nomcp

package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/agenthosts"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type mcpConnectOptions struct {
	Host    string
	Project bool
	DryRun  bool
	Command string
	Name    string
	Args    []string
}

func newMCPConnectCmd(f *Factory, connect bool) *cobra.Command {
	opts := &mcpConnectOptions{}
	verb, does := "connect", "Add fledge mcp to an agent host's MCP servers"
	if !connect {
		verb, does = "disconnect", "Remove fledge mcp from an agent host's MCP servers"
	}
	cmd := &cobra.Command{
		Use:   verb + " <host> [--project] [--dry-run]",
		Short: does,
		Long: does + `: one of ` + strings.Join(agenthosts.Hosts(), ", ") + `.

Each host keeps its servers in its own file (--project: the project's,
where the host has one). Only fledge's entry changes: every other byte of
the file stays, and running it twice changes nothing the second time.
--dry-run shows the change without writing it.`,
		Args: exactArgs(1, "name the agent host: "+strings.Join(agenthosts.Hosts(), ", ")),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Host = args[0]
			return mcpConnectRun(f, opts, connect)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Project, "project", false, "the project's settings (in the current directory) instead of the user's")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "show the change without writing it")
	fl.StringVar(&opts.Name, "name", "fledge", "the entry's name in the host's settings")
	if connect {
		fl.StringVar(&opts.Command, "command", "", "the fledge the host runs (default: this one)")
		fl.StringSliceVar(&opts.Args, "args", []string{"mcp"}, "its arguments (such as mcp,--tools,git.*)")
	}
	return cmd
}

func mcpConnectRun(f *Factory, opts *mcpConnectOptions, connect bool) error {
	host, err := agenthosts.Lookup(opts.Host)
	if err != nil {
		return usageErrorf("%v", err)
	}
	root, err := f.Getwd()
	if err != nil {
		return err
	}
	file, err := host.File(hostEnv(f), opts.Project, root)
	if err != nil {
		return usageErrorf("%v", err)
	}
	old, err := agenthosts.Read(file)
	if err != nil {
		return err
	}
	var out []byte
	var changed bool
	if connect {
		command := opts.Command
		if command == "" {
			if command, err = fledgeCommand(); err != nil {
				return err
			}
		}
		out, changed, err = host.Connect(old, agenthosts.Server{Name: opts.Name, Command: command, Args: opts.Args})
	} else {
		out, changed, err = host.Disconnect(old, opts.Name)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	shown := termsafe.Escape(file)
	switch {
	case !changed && connect:
		fmt.Fprintf(f.IO.ErrOut, "%s already runs fledge mcp as %q (%s): nothing to change\n", host.Title, opts.Name, shown)
		return nil
	case !changed:
		fmt.Fprintf(f.IO.ErrOut, "%s has no server %q (%s): nothing to change\n", host.Title, opts.Name, shown)
		return nil
	case opts.DryRun:
		fmt.Fprintf(f.IO.Out, "--- %s\n+++ %s (after %s)\n", shown, shown, map[bool]string{true: "connect", false: "disconnect"}[connect])
		writeLineDiff(f.IO.Out, old, out)
		return nil
	}
	if err := agenthosts.Write(file, out); err != nil {
		return err
	}
	if connect {
		fmt.Fprintf(f.IO.ErrOut, "%s now runs fledge mcp as %q (%s); restart it, or reload its MCP servers, to see the tools\n", host.Title, opts.Name, shown)
	} else {
		fmt.Fprintf(f.IO.ErrOut, "%s no longer runs fledge mcp as %q (%s)\n", host.Title, opts.Name, shown)
	}
	return nil
}

// hostEnv is where the hosts' user files are, from this process's
// environment (through the Factory, so tests set it).
func hostEnv(f *Factory) agenthosts.Env {
	home := f.Getenv("HOME")
	if runtime.GOOS == "windows" {
		home = f.Getenv("USERPROFILE")
	}
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	config := f.Getenv("XDG_CONFIG_HOME")
	switch {
	case runtime.GOOS == "windows":
		config = f.Getenv("APPDATA")
	case runtime.GOOS == "darwin":
		config = filepath.Join(home, "Library", "Application Support")
	case config == "":
		config = filepath.Join(home, ".config")
	}
	return agenthosts.Env{Home: home, ConfigDir: config, Getenv: f.Getenv}
}

// fledgeCommand is the fledge a host should run: this one, by the name
// PATH finds it under when that is the same file (so an upgrade that
// replaces it keeps working), else by its own path.
func fledgeCommand() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this fledge's path: %w (give it with --command)", err)
	}
	if p, err := exec.LookPath("fledge"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			a, aerr := os.Stat(abs)
			b, berr := os.Stat(self)
			if aerr == nil && berr == nil && os.SameFile(a, b) {
				return abs, nil
			}
		}
	}
	return self, nil
}

// writeLineDiff shows what changes between a and b: the lines around the
// one changed stretch, removed lines with -, added with +.
func writeLineDiff(w io.Writer, a, b []byte) {
	al, bl := strings.SplitAfter(string(a), "\n"), strings.SplitAfter(string(b), "\n")
	p := 0
	for p < len(al) && p < len(bl) && al[p] == bl[p] {
		p++
	}
	s := 0
	for s < len(al)-p && s < len(bl)-p && al[len(al)-1-s] == bl[len(bl)-1-s] {
		s++
	}
	line := func(mark, l string) {
		fmt.Fprintf(w, "%s%s\n", mark, termsafe.Escape(strings.TrimRight(l, "\r\n")))
	}
	for _, l := range al[max(p-3, 0):p] {
		line(" ", l)
	}
	for _, l := range al[p : len(al)-s] {
		line("-", l)
	}
	for _, l := range bl[p : len(bl)-s] {
		line("+", l)
	}
	for _, l := range al[len(al)-s : min(len(al)-s+3, len(al))] {
		if l != "" {
			line(" ", l)
		}
	}
}
