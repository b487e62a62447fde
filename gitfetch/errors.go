package gitfetch

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// RemoteError is a failure to talk to a remote, said in a person's terms
// (no repository there, credentials wanted, host unknown, connection
// refused) rather than as the HTTP or socket error underneath, which stays
// in the chain for errors.Is and errors.As.
type RemoteError struct {
	URL string
	// Problem is what went wrong, as a sentence fragment.
	Problem string
	Err     error
}

func (e *RemoteError) Error() string { return e.Problem }
func (e *RemoteError) Unwrap() error { return e.Err }

// explain rewrites what go-git and the network report about u; an error
// it does not recognise, or an interruption, is wrapped as "<doing> u:
// err".
func explain(doing, u string, err error) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s %s: %w", doing, u, err)
	}
	var (
		dns     *net.DNSError
		op      *net.OpError
		unknown x509.UnknownAuthorityError
		invalid x509.CertificateInvalidError
		host    x509.HostnameError
	)
	problem := ""
	switch {
	case errors.Is(err, transport.ErrRepositoryNotFound):
		problem = fmt.Sprintf("no repository at %s", u)
	case errors.Is(err, transport.ErrAuthenticationRequired):
		problem = fmt.Sprintf("%s asks for credentials: there is no repository there, or it is private", u)
	case errors.Is(err, transport.ErrAuthorizationFailed):
		problem = fmt.Sprintf("%s refused the credentials given: there is no repository there, or they do not grant access to it", u)
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		problem = fmt.Sprintf("%s is an empty repository: it has no commits to install", u)
	case errors.Is(err, context.DeadlineExceeded):
		problem = fmt.Sprintf("%s did not answer in time", u)
	case errors.As(err, &dns):
		problem = fmt.Sprintf("cannot find the host %s (DNS lookup failed)", dns.Name)
	case errors.As(err, &unknown), errors.As(err, &invalid), errors.As(err, &host):
		problem = fmt.Sprintf("%s's TLS certificate is not trusted", hostOf(u))
	case errors.As(err, &op) && op.Op == "dial":
		problem = fmt.Sprintf("cannot connect to %s: %s", hostOf(u), reason(op))
	default:
		return fmt.Errorf("%s %s: %w", doing, u, err)
	}
	return &RemoteError{URL: u, Problem: problem, Err: err}
}

// hostOf is the host (and port) of a URL, or the URL when it has none.
func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return p.Host
	}
	return u
}

// reason is why a connection failed, without the Go operation around it
// ("connection refused", "network is unreachable", "i/o timeout").
func reason(op *net.OpError) string {
	if op.Err == nil {
		return "failed"
	}
	var inner error = op.Err
	for {
		u := errors.Unwrap(inner)
		if u == nil {
			break
		}
		inner = u
	}
	return inner.Error()
}
