package ociartifact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/corvidlabs/fledge-go/registry"
)

// Remote says how registries are reached. The zero value uses the docker
// configuration's credentials at the default path, HTTPS everywhere but
// loopback, and DefaultTimeout.
type Remote struct {
	// HTTP is the client requests go through (nil: one with Timeout);
	// tests put a client here that trusts their certificate.
	HTTP *http.Client
	// DockerConfig is the docker config.json whose credentials (and
	// credential helpers: credsStore, credHelpers) are used; "" for
	// docker's default ($DOCKER_CONFIG, then ~/.docker).
	DockerConfig string
	// PlainHTTP lists registries (host or host:port) reached over plain
	// http. A loopback registry is always tried over HTTPS first and falls
	// back to http when it answers in plain text, as docker does.
	PlainHTTP []string
	// Timeout bounds connecting, waiting for a response and any pause in
	// its body (0: DefaultTimeout); a transfer that keeps moving is not cut
	// off, and the context cancels everything.
	Timeout time.Duration
}

// DefaultTimeout is Remote.Timeout's default.
const DefaultTimeout = 60 * time.Second

// Repository is the registry repository host/name, ready to pull from or
// push to.
func (r *Remote) Repository(ctx context.Context, host, name string) (*remote.Repository, error) {
	repo, err := remote.NewRepository(host + "/" + name)
	if err != nil {
		return nil, fmt.Errorf("oci://%s/%s: %w", host, name, err)
	}
	for _, h := range r.PlainHTTP {
		if h == host || h == repo.Reference.Host() {
			repo.PlainHTTP = true
		}
	}
	client := r.client()
	if !repo.PlainHTTP && registry.IsLoopbackHost(hostname(repo.Reference.Registry)) {
		repo.PlainHTTP = speaksPlainHTTP(ctx, client, repo.Reference.Registry)
	}
	var store credentials.Store
	if r.DockerConfig != "" {
		store, err = credentials.NewStore(r.DockerConfig, credentials.StoreOptions{})
	} else {
		store, err = credentials.NewStoreFromDocker(credentials.StoreOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("read registry credentials: %w", err)
	}
	repo.Client = &auth.Client{Client: client, Credential: credentials.Credential(store), Cache: auth.NewCache()}
	repo.MaxMetadataBytes = DefaultMaxManifestBytes
	// Referrers are never asked for; a manifest is pushed as it is.
	repo.SkipReferrersGC = true
	return repo, nil
}

func (r *Remote) client() *http.Client {
	base := r.HTTP
	if base == nil {
		t := r.Timeout
		if t <= 0 {
			t = DefaultTimeout
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = (&net.Dialer{Timeout: t, KeepAlive: 30 * time.Second}).DialContext
		tr.TLSHandshakeTimeout, tr.ResponseHeaderTimeout = t, t
		base = &http.Client{Transport: tr}
	}
	c := *base
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &idleTransport{next: next, idle: r.timeout()}
	return &c
}

func (r *Remote) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return DefaultTimeout
}

// ErrIdle is wrapped when a registry stops sending a response for longer
// than Remote.Timeout.
var ErrIdle = errors.New("the registry sent nothing")

// idleTransport cancels a request whose response body sends nothing for
// idle: a registry that stalls mid-blob fails, one that keeps sending
// never does.
type idleTransport struct {
	next http.RoundTripper
	idle time.Duration
}

func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	timer := time.AfterFunc(t.idle, func() { cancel(fmt.Errorf("%w for %v", ErrIdle, t.idle)) })
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		cancel(nil)
		if c := context.Cause(ctx); errors.Is(c, ErrIdle) {
			return nil, c
		}
		return nil, err
	}
	resp.Body = &idleBody{ReadCloser: resp.Body, ctx: ctx, timer: timer, idle: t.idle, cancel: cancel}
	return resp, nil
}

type idleBody struct {
	io.ReadCloser
	ctx    context.Context
	timer  *time.Timer
	idle   time.Duration
	cancel context.CancelCauseFunc
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.timer.Reset(b.idle)
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		if c := context.Cause(b.ctx); errors.Is(c, ErrIdle) {
			return n, c
		}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// speaksPlainHTTP reports whether the loopback registry at host answers
// HTTPS in plain text (docker's rule for localhost registries: HTTPS
// first, plain http only when that is all the registry speaks).
func speaksPlainHTTP(ctx context.Context, c *http.Client, host string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+host+"/v2/", nil)
	if err != nil {
		return false
	}
	resp, err := c.Do(req)
	if err == nil {
		resp.Body.Close()
		return false
	}
	return errors.Is(err, http.ErrSchemeMismatch)
}

// hostname is host:port without the port (and an IPv6 address without
// its brackets).
func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}
