package ociartifact_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/ociartifact/ocitest"
)

// A registry that stops sending in the middle of a layer fails the pull
// after Remote.Timeout of silence, with ErrIdle.
func TestStalledLayerTimesOut(t *testing.T) {
	ctx := context.Background()
	reg := ocitest.Start(t, ocitest.Options{})
	dir := writeTree(t, helloTree)
	if _, err := ociartifact.Push(ctx, repo(t, reg, "p/hello", nil), dir, ociartifact.Info{Name: "hello", Version: "1.0.0"}, []string{"1.0.0"}, ociartifact.Limits{}); err != nil {
		t.Fatal(err)
	}
	// A proxy in front of it that sends a blob's first bytes, then nothing.
	up, _ := url.Parse("http://" + reg.Host)
	proxy := httputil.NewSingleHostReverseProxy(up)
	release := make(chan struct{})
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/blobs/") || r.Method != http.MethodGet {
			proxy.ServeHTTP(w, r)
			return
		}
		resp, err := http.Get("http://" + reg.Host + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body[:2])
		w.(http.Flusher).Flush()
		<-release
	}))
	defer stall.Close()
	defer close(release)
	host := strings.TrimPrefix(stall.URL, "http://")
	// Generous enough that a busy machine answers the manifest in time: only
	// the stall, which lasts until the test ends, may exceed it.
	r, err := (&ociartifact.Remote{Timeout: 3 * time.Second, DockerConfig: reg.DockerConfig}).Repository(ctx, host, "p/hello")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ociartifact.Pull(ctx, r, "1.0.0", filepath.Join(t.TempDir(), "tree"), ociartifact.Limits{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ociartifact.ErrIdle) {
			t.Fatalf("stalled layer: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a pull from a stalled registry did not end within a minute (its timeout is 3s)")
	}
}
