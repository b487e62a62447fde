package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Token, when set, must come with every request as
	// "Authorization: Bearer <token>".
	Token string
	// SessionTimeout closes a session idle this long (30 minutes when
	// zero).
	SessionTimeout time.Duration
}

// Path is where the streamable HTTP endpoint is served.
const Path = "/mcp"

// IsLoopback reports whether host (an IP address or "localhost") names
// this machine only.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler returns the streamable HTTP handler, guarded: the SDK's DNS
// rebinding protection (a request reaching a loopback address must name a
// loopback host), cross-origin protection (a browser page from another
// origin cannot post to it), an Origin that is not a loopback one refused,
// and the bearer token when one is set.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 30 * time.Minute
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		SessionTimeout: o.SessionTimeout,
	})
	guarded := http.NewCrossOriginProtection().Handler(s.hangUpGone(h))
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
			http.Error(w, "fledge mcp: requests from web pages on other hosts are refused", http.StatusForbidden)
			return
		}
		if o.Token != "" {
			// The scheme is case-insensitive (RFC 9110 section 11.1).
			scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
			if !ok || !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(got), []byte(o.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "fledge mcp: a bearer token is required", http.StatusUnauthorized)
				return
			}
		}
		// Host names ignore case; the SDK's rebinding check does not, and
		// would refuse "LOCALHOST".
		r.Host = strings.ToLower(r.Host)
		guarded.ServeHTTP(w, r)
	})
	return mux
}

// loopbackOrigin reports whether an Origin header names a page served from
// this machine.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && IsLoopback(u.Hostname())
}

// ServeHTTP serves the streamable HTTP transport on ln until ctx ends,
// watching the catalog meanwhile, then stops every call.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.startWatch(ctx)
	srv := &http.Server{Handler: s.Handler(o), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		// Calls end first: their streams are what Shutdown would wait on.
		s.hangUpAll()
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	err := srv.Serve(ln)
	cancel()
	<-done
	s.Shutdown()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("serve %s: %w", ln.Addr(), err)
}
