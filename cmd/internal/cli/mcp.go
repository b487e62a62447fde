//go:build !fledge_nomcp

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/mcpserver"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/runner"
)

type mcpOptions struct {
	HTTP           string
	AllowRemote    bool
	AllowDangerous bool
	Timeout        string
	Tools          []string
}

func newMCPCmd(f *Factory) *cobra.Command {
	opts := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp [--http 127.0.0.1:PORT] [--tools NAME,...] [--allow-dangerous] [--timeout D]",
		Short: "Serve every installed plugin command as a tool over MCP (for agent hosts)",
		Long: `Serve every installed plugin command as a tool over the Model Context Protocol,
for agent hosts (Claude, editors, your own agent). A tool call runs the
command as 'fledge plugins run' does, with exactly the capabilities you
granted its plugin; 'fledge plugins tools' lists what is served.

By default it speaks MCP on stdin and stdout, as agent hosts launch servers.
With --http it serves streamable HTTP at http://ADDR/mcp instead.

  --http ADDR        listen on ADDR (a loopback address such as 127.0.0.1:8765;
                     port 0 picks one); another address needs --allow-remote
  --allow-remote     listen on a non-loopback address: anyone who can reach it
                     and holds $FLEDGE_MCP_TOKEN runs your plugins as you
  --tools NAME,...   offer only these tools: a tool's name or plugin.command,
                     globs allowed ("plugin.*"); the admin policy's [tools]
                     rules still apply ('fledge plugins policy' shows them)
  --allow-dangerous  run commands marked dangerous without asking (otherwise
                     the client must confirm each, or they are refused)
  --timeout D        stop a call's plugin after D (default 10m); a call may
                     ask for less with _meta "fledge/timeout"

Plugin questions are asked through the client (elicitation) when it can;
otherwise, or under --ni, they take their defaults or are cancelled.

'fledge mcp connect <host>' adds this server to an agent host's settings
(Claude Code, Codex, Gemini CLI, Cursor, VS Code, Zed); 'fledge mcp
disconnect <host>' removes it.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return mcpRun(c.Context(), f, opts)
		},
	}
	cmd.AddCommand(newMCPConnectCmd(f, true), newMCPConnectCmd(f, false))
	fl := cmd.Flags()
	fl.StringVar(&opts.HTTP, "http", "", "serve streamable HTTP on this address instead of stdio")
	fl.BoolVar(&opts.AllowRemote, "allow-remote", false, "allow --http on a non-loopback address (needs $"+EnvMCPToken+")")
	fl.BoolVar(&opts.AllowDangerous, "allow-dangerous", false, "run dangerous commands without asking")
	fl.StringVar(&opts.Timeout, "timeout", "", "the longest a call may run (default 10m)")
	fl.StringSliceVar(&opts.Tools, "tools", nil, "offer only these tools (names or plugin.command; globs such as plugin.*)")
	return cmd
}

func mcpRun(ctx context.Context, f *Factory, opts *mcpOptions) error {
	var timeout time.Duration
	if opts.Timeout != "" {
		d, err := parseDuration(opts.Timeout)
		if err != nil || d <= 0 {
			return usageErrorf("--timeout %q: want a positive duration such as 30s, 5m or 90", opts.Timeout)
		}
		timeout = d
	}
	for _, p := range opts.Tools {
		if err := policy.CheckToolPattern(p); err != nil {
			return usageErrorf("--tools: %v", err)
		}
	}
	if opts.Tools != nil && len(opts.Tools) == 0 {
		return usageErrorf("--tools names no tool: give tool names or plugin.command patterns, separated by commas")
	}
	token := f.Getenv(EnvMCPToken)
	var addr string
	if opts.HTTP != "" {
		host, _, err := net.SplitHostPort(opts.HTTP)
		if err != nil {
			return usageErrorf("--http %q: want host:port, such as 127.0.0.1:8765", opts.HTTP)
		}
		if !mcpserver.IsLoopback(host) {
			if !opts.AllowRemote {
				return usageErrorf("--http %q is not a loopback address: anyone who can reach it could run your plugins as you; "+
					"use 127.0.0.1:PORT, or add --allow-remote and set %s", opts.HTTP, EnvMCPToken)
			}
			if token == "" {
				return usageErrorf("--allow-remote needs %s set to a secret token, which every request must send as \"Authorization: Bearer <token>\"", EnvMCPToken)
			}
		}
		addr = opts.HTTP
	} else if opts.AllowRemote {
		return usageErrorf("--allow-remote applies only with --http")
	}

	paths, err := f.Paths()
	if err != nil {
		return err
	}
	store := lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock())
	base, _, err := newRunner(f, &runOptions{NonInteractive: true})
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(mcpserver.Options{
		Paths: paths, Version: f.Version,
		Runner: runner.Runner{Environ: base.Environ, Getwd: base.Getwd, UserHome: base.UserHome, Unconfined: base.Unconfined, Timeouts: base.Timeouts, Stderr: f.IO.ErrOut,
			Journal: grantLog(f, paths), Events: base.Events, Actor: base.Actor, Seeds: base.Seeds, Wasm: base.Wasm},
		Settings:       settingsInputs(f, paths),
		AllowDangerous: opts.AllowDangerous,
		Tools:          opts.Tools,
		NonInteractive: f.IO.NonInteractive(),
		Timeout:        timeout,
		Log:            f.IO.ErrOut,
		Prepare:        func() error { return recoverInterrupted(f, paths, store) },
		Hint:           func(res *runner.Result, err error) string { return runHint(f, res, err) },
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()

	if addr == "" {
		out, restore, err := protocolStdout(f.IO.Out)
		if err != nil {
			return err
		}
		defer restore()
		fmt.Fprintf(f.IO.ErrOut, "fledge mcp: serving %d tools on stdio\n", srv.Len())
		err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(f.IO.In), Writer: nopWriteCloser{out}})
		if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	fmt.Fprintf(f.IO.ErrOut, "fledge mcp: serving %d tools at http://%s%s\n", srv.Len(), ln.Addr(), mcpserver.Path)
	return srv.ServeHTTP(ctx, ln, mcpserver.HTTPOptions{Token: token})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
