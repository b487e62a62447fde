package gitfetch

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
)

// Loopback git servers for the transport tests: real smart-HTTP and git://
// servers (go-git's upload-pack, the one file:// uses, behind each
// protocol's framing) whose answers can be slowed or stopped, and
// listeners that accept and never answer.

// pace says how a server sends: chunk bytes at a time with a pause
// between chunks, and after stallAfter bytes (when > 0) nothing more until
// the test ends.
type pace struct {
	chunk      int
	every      time.Duration
	stallAfter int64
}

// pacedWriter writes through w at a pace.
type pacedWriter struct {
	w     io.Writer
	flush func()
	p     pace
	done  <-chan struct{}
	sent  int64
}

func (pw *pacedWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		if pw.p.stallAfter > 0 && pw.sent >= pw.p.stallAfter {
			<-pw.done
			return n, errors.New("server stopped")
		}
		k := len(b)
		if pw.p.chunk > 0 {
			k = min(k, pw.p.chunk)
		}
		if pw.p.stallAfter > 0 {
			k = int(min(int64(k), pw.p.stallAfter-pw.sent))
		}
		m, err := pw.w.Write(b[:k])
		n += m
		pw.sent += int64(m)
		if pw.flush != nil {
			pw.flush()
		}
		if err != nil {
			return n, err
		}
		b = b[k:]
		if pw.p.every > 0 && len(b) > 0 {
			select {
			case <-time.After(pw.p.every):
			case <-pw.done:
				return n, errors.New("server stopped")
			}
		}
	}
	return n, nil
}

// uploadPack is the session serving the repository at dir: file://'s, with
// depth-1 clones served as a real server serves them.
func uploadPack(t *testing.T, dir string) transport.UploadPackSession {
	t.Helper()
	s, err := peelingTransport{server.NewServer(repoLoader{})}.NewUploadPackSession(&transport.Endpoint{Path: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return shallowSession{s.(*peelingSession)}
}

// httpGitServer serves the repository at dir over smart HTTP on loopback
// and returns its URL. info paces the reference advertisement, pack the
// upload-pack answer.
func httpGitServer(t *testing.T, dir string, info, pack pace) string {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flush := func() { w.(http.Flusher).Flush() }
		sess := uploadPack(t, dir)
		defer sess.Close()
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/info/refs"):
			ar, err := sess.AdvertisedReferencesContext(r.Context())
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			ar.Prefix = [][]byte{[]byte("# service=git-upload-pack"), pktline.Flush}
			w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
			w.WriteHeader(http.StatusOK)
			flush()
			_ = ar.Encode(&pacedWriter{w: w, flush: flush, p: info, done: done})
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
			req := packp.NewUploadPackRequest()
			if err := req.Decode(r.Body); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if _, err := sess.AdvertisedReferencesContext(r.Context()); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			resp, err := sess.UploadPack(r.Context(), req)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
			w.WriteHeader(http.StatusOK)
			flush()
			_ = resp.Encode(&pacedWriter{w: w, flush: flush, p: pack, done: done})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() {
		close(done)
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL + "/o/fledge-plugin-x"
}

// gitProtocolServer serves the repository at dir over git:// on loopback
// and returns its URL; p paces everything it sends.
func gitProtocolServer(t *testing.T, dir string, p pace) string {
	t.Helper()
	done := make(chan struct{})
	url := listen(t, done, func(c net.Conn) {
		var preq packp.GitProtoRequest
		if err := preq.Decode(c); err != nil {
			return
		}
		sess := uploadPack(t, dir)
		defer sess.Close()
		out := &pacedWriter{w: c, p: p, done: done}
		ar, err := sess.AdvertisedReferencesContext(context.Background())
		if err != nil || ar.Encode(out) != nil {
			return
		}
		req := packp.NewUploadPackRequest()
		if err := req.Decode(c); err != nil {
			return // a listing: the client hangs up after the advertisement
		}
		resp, err := sess.UploadPack(context.Background(), req)
		if err != nil {
			return
		}
		_ = resp.Encode(out)
		// Hang up only after the client has: closing with its "done"
		// unread would reset the connection under the pack's last bytes.
		_ = c.(*net.TCPConn).CloseWrite()
		_, _ = io.Copy(io.Discard, c)
	})
	return "git://" + url + "/o/fledge-plugin-x"
}

// silentServer accepts connections and never sends a byte; it returns its
// host:port and a channel that receives each connection as it is accepted.
func silentServer(t *testing.T) (string, <-chan struct{}) {
	t.Helper()
	done := make(chan struct{})
	accepted := make(chan struct{}, 16)
	addr := listen(t, done, func(c net.Conn) {
		select {
		case accepted <- struct{}{}:
		default:
		}
		_, _ = io.Copy(io.Discard, c) // until the client or the test hangs up
	})
	return addr, accepted
}

// headersThenSilence answers every HTTP request with a success status and
// headers, then sends nothing more.
func headersThenSilence(t *testing.T) string {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() {
		close(done)
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL + "/o/fledge-plugin-x"
}

// listen serves each loopback TCP connection with handle until the test
// ends, and returns the listener's host:port.
func listen(t *testing.T, done chan struct{}, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	t.Cleanup(func() {
		close(done)
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}
