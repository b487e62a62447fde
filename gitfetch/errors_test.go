package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// A remote that cannot be reached is reported in a person's terms, with no
// HTTP request or socket call in the text, and the cause still in the
// chain.
func TestRemoteErrorsSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	missing := "file://" + filepath.ToSlash(filepath.Join(t.TempDir(), "nothing-here"))
	for _, c := range []struct {
		url   string
		want  string
		cause error
	}{
		{missing, "no repository at " + missing, transport.ErrRepositoryNotFound},
		{"http://" + closed + "/o/r", "cannot connect to " + closed + ": connection refused", nil},
	} {
		_, err := ListRefs(context.Background(), c.url, Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.url, err, c.want)
			continue
		}
		for _, raw := range []string{"info/refs", "dial tcp", "Get \"", "list refs of"} {
			if strings.Contains(err.Error(), raw) {
				t.Errorf("%s: %q shows %q", c.url, err, raw)
			}
		}
		var re *RemoteError
		if !errors.As(err, &re) || (c.cause != nil && !errors.Is(err, c.cause)) {
			t.Errorf("%s: cause lost: %#v", c.url, err)
		}
	}

	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x: %w", transport.ErrAuthenticationRequired), "https://h/o/r asks for credentials: there is no repository there, or it is private"},
		{transport.ErrEmptyRemoteRepository, "https://h/o/r is an empty repository: it has no commits to install"},
		{&net.DNSError{Name: "h", Err: "no such host"}, "cannot find the host h (DNS lookup failed)"},
		{context.DeadlineExceeded, "https://h/o/r did not answer in time"},
		{errors.New("something else"), "clone https://h/o/r: something else"},
		{context.Canceled, "clone https://h/o/r: context canceled"},
	} {
		if got := explain("clone", "https://h/o/r", c.err).Error(); got != c.want {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
}
