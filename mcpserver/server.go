package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/catalog"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Defaults.
const (
	// DefaultTimeout bounds a call when Options.Timeout is zero.
	DefaultTimeout = 10 * time.Minute
	// DefaultPoll is how often plugins.toml and config.toml are checked
	// for changes.
	DefaultPoll = time.Second
)

// Options configure a Server.
type Options struct {
	Paths   home.Paths
	Version string
	// Runner is the template of every call's runner: its environment,
	// working directory, user home, timeouts, limits and grant log. Paths,
	// Version, UI, streams, Interactive and Settings are set per call.
	Runner runner.Runner
	// Tools, when set, are the tool patterns (policy.CheckToolPattern)
	// of the only tools offered (--tools): they narrow what the policy
	// offers, never widen it. A tool not offered is not listed and a call
	// to it is refused as an unknown tool's.
	Tools []string
	// AllowDangerous runs dangerous commands without asking.
	AllowDangerous bool
	// NonInteractive never asks the person anything (--ni): plugins'
	// questions take the non-interactive rule, and a dangerous command
	// runs only under AllowDangerous.
	NonInteractive bool
	// Timeout bounds every call (DefaultTimeout when zero); a call may ask
	// for less.
	Timeout time.Duration
	// Log is the server's own log (stderr): plugins' logs and stderr,
	// fledge's warnings, collisions.
	Log io.Writer
	// Settings say where config.toml (Paths' when ConfigFile is empty)
	// and the admin policy are read from.
	// They are read afresh for the catalog and for every call (a policy
	// may be tightened while the server runs): each tool's tier and grants
	// and each call's enforcement are what they decide then. A policy
	// that cannot be read fails every call.
	Settings settings.Inputs
	// Prepare runs before the catalog is read and before each call
	// (recovering what an interrupted fledge left half-changed: install's
	// work, which this package does not link). An error fails the call.
	Prepare func() error
	// Hint returns advice for a failed run, or "" (words for a person are
	// the command layer's).
	Hint func(*runner.Result, error) string
	// Poll is how often the catalog's files are checked (DefaultPoll).
	Poll time.Duration
	// Drain is how long calls still running when the client closes its
	// input may go on to be answered (DefaultDrain); HangUp how long a
	// call nobody will read the answer of has to stop before its plugin's
	// process group is killed (DefaultHangUp). See stop.go.
	Drain, HangUp time.Duration
}

// Server serves the installed commands as MCP tools.
type Server struct {
	opts Options
	mcp  *mcp.Server
	log  *logger

	mu     sync.Mutex
	tools  map[string]string // name → fingerprint of what was registered
	pin    string            // catalog.Digest of the tools offered
	noted  bool              // the --tools patterns were checked
	inputs []string          // the files the catalog was built from
	digest string            // of inputs, taken before they were read

	calls      sync.WaitGroup
	closing    bool                  // under mu: no call may start
	running    map[*running]struct{} // under mu
	watchStart sync.Once
}

// New builds the server and registers the current catalog.
func New(opts Options) (*Server, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Drain <= 0 {
		opts.Drain = DefaultDrain
	}
	if opts.HangUp <= 0 {
		opts.HangUp = DefaultHangUp
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	for _, p := range opts.Tools {
		if err := policy.CheckToolPattern(p); err != nil {
			return nil, err
		}
	}
	if opts.Settings.ConfigFile == "" {
		opts.Settings.ConfigFile = opts.Paths.ConfigFile()
	}
	s := &Server{opts: opts, log: &logger{w: opts.Log}, tools: map[string]string{}, running: map[*running]struct{}{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "fledge", Title: "fledge plugins", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "Each tool runs an installed fledge plugin command, with exactly the capabilities the user granted it. " +
			"A tool's _meta names its plugin, trust tier and grants.",
		Capabilities: &mcp.ServerCapabilities{
			Tools:   &mcp.ToolCapabilities{ListChanged: true},
			Logging: &mcp.LoggingCapabilities{},
		},
		SupportedProtocolVersions: handshakeVersions(),
		Logger:                    slog.New(slog.NewTextHandler(opts.Log, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	s.mcp.AddReceivingMiddleware(s.withDigest)
	// The SDK checks each tool it is given by encoding and decoding its
	// schema twice, with a fresh 32 KB buffer each time: 100 tools leave
	// some 10 MB of garbage on a heap of a few, and collecting it as it
	// came was a third of the start-up (issue 24). The first load lets
	// the heap grow further before collecting.
	defer debug.SetGCPercent(debug.SetGCPercent(startupGCPercent))
	if err := s.Reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// startupGCPercent is the garbage collector's GOGC while New loads the
// catalog.
const startupGCPercent = 400

// handshakeVersions are the protocol versions the SDK speaks with the
// initialize handshake (see the package doc).
func handshakeVersions() []string {
	var out []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			out = append(out, v)
		}
	}
	return out
}

// Len returns how many tools are served.
func (s *Server) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tools)
}

// MCP returns the underlying SDK server.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one session over t (stdio, or in memory) until the client
// closes its input or ctx ends, watching the catalog meanwhile. The
// requests read before the input ended are answered (calls still running
// Drain later are hung up); when ctx ends every call is hung up. It returns
// once every call it started has ended. A Server is run once (Run or
// ServeHTTP): then it is shut down.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	s.startWatch(wctx)
	// The SDK's session ends only once the calls were hung up and
	// answered: once it closes, it writes no answer.
	a := newAnswers()
	sctx, end := context.WithCancel(context.WithoutCancel(ctx))
	defer end()
	defer context.AfterFunc(ctx, func() {
		s.finish(a, 0)
		end()
	})()
	err := s.mcp.Run(sctx, drainTransport{Transport: t, s: s, a: a})
	s.Shutdown()
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Reload rebuilds the catalog and registers what changed: new and changed
// tools are added (replacing the old), removed ones removed. The SDK then
// tells clients the list changed.
func (s *Server) Reload() error {
	if s.opts.Prepare != nil {
		if err := s.opts.Prepare(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	prev := s.inputs
	s.mu.Unlock()
	if prev == nil {
		prev = append([]string{s.opts.Paths.PluginsFile()}, s.opts.Settings.Files()...)
	}
	// Digested before they are read: a change while they are read shows
	// as a difference at the next poll, never as a catalog that looks
	// current and is not.
	digest := digestFiles(prev)
	set, err := settings.Load(s.opts.Settings)
	var invalid *policy.InvalidError
	if errors.As(err, &invalid) {
		// The tools are still listed, as config.toml alone ranks them;
		// every call is refused until the policy is fixed.
		s.log.printf("warning: %s\n", termsafe.EscapeText(err.Error()))
	} else if err != nil {
		return err
	}
	c, err := catalog.LoadSeeded(s.opts.Paths, s.opts.Runner.Seeds, set)
	if err != nil {
		return err
	}
	if off := s.opts.Runner.Unconfined; off != "" {
		c.Unconfine(off)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Equal(prev, c.Inputs) {
		digest = "" // other files now count: digest them at the next poll
	}
	s.inputs, s.digest = c.Inputs, digest
	for _, col := range c.Collisions {
		var named []string
		for i, p := range col.Plugins {
			named = append(named, fmt.Sprintf("%s (%s)", col.Tools[i], termsafe.Escape(p)))
		}
		s.log.printf("note: %d plugins provide command %s; their tools are %s\n", len(col.Plugins), col.Command, strings.Join(named, ", "))
	}
	for _, sk := range c.Skipped {
		s.log.printf("warning: %s: command %s is not offered as a tool: %s\n", termsafe.Escape(sk.Plugin), termsafe.Escape(sk.Command), termsafe.EscapeText(sk.Reason))
	}
	for _, e := range c.Edited {
		s.log.printf("note: %s: plugin.toml changed since it was linked, so its tools are what was approved; install its directory again to offer the edit\n", termsafe.Escape(e.Plugin))
	}
	seen := map[string]bool{}
	var offered []string // their fingerprints
	for _, t := range c.Tools {
		if !s.offered(t) {
			continue
		}
		seen[t.Name] = true
		fp := fingerprint(t)
		offered = append(offered, fp)
		if s.tools[t.Name] == fp {
			continue
		}
		s.tools[t.Name] = fp
		s.mcp.AddTool(toMCPTool(t), s.handler(t))
	}
	var gone []string
	for name := range s.tools {
		if !seen[name] {
			gone = append(gone, name)
			delete(s.tools, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	s.pin = catalog.DigestOf(offered)
	if !s.noted {
		s.noted = true
		for _, p := range s.opts.Tools {
			if !slices.ContainsFunc(c.Tools, func(t *catalog.Tool) bool { return policy.MatchTool(p, t.Names()) }) {
				s.log.printf("note: --tools %s matches no tool offered\n", termsafe.Escape(p))
			}
		}
	}
	return nil
}

// Digest is catalog.Digest of the tools offered now: what `fledge plugins
// tools --json` shows as its digest when every tool is offered.
func (s *Server) Digest() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pin
}

// withDigest puts the digest of the tools offered in the _meta of the
// initialize and tools/list results, for a client to pin.
func (s *Server) withDigest(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var meta *mcp.Meta
		switch r := res.(type) {
		case *mcp.InitializeResult:
			meta = &r.Meta
		case *mcp.ListToolsResult:
			meta = &r.Meta
		default:
			return res, err
		}
		if *meta == nil {
			*meta = mcp.Meta{}
		}
		(*meta)[MetaCatalogDigest] = s.Digest()
		return res, err
	}
}

// offered reports whether Options.Tools lets t be offered.
func (s *Server) offered(t *catalog.Tool) bool {
	if s.opts.Tools == nil {
		return true
	}
	names := t.Names()
	return slices.ContainsFunc(s.opts.Tools, func(p string) bool { return policy.MatchTool(p, names) })
}

// logger is the server's own log: one line at a time, from any call.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) printf(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format, a...)
}

func (l *logger) print(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, s)
}
