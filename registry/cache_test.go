package registry

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeIndex is a loopback index server whose answers a test changes.
type fakeIndex struct {
	mu           sync.Mutex
	body         []byte
	etag         string
	lastModified string
	status       int // 0 = normal
	requests     []*http.Request
	block        bool // hang until the client gives up
}

func (f *fakeIndex) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Clone(context.Background()))
	body, etag, lm, status, block := f.body, f.etag, f.lastModified, f.status, f.block
	f.mu.Unlock()
	if block {
		<-r.Context().Done()
		return
	}
	if status != 0 {
		w.WriteHeader(status)
		return
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	if lm != "" {
		w.Header().Set("Last-Modified", lm)
		if r.Header.Get("If-Modified-Since") == lm {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (f *fakeIndex) lastRequest(t *testing.T) *http.Request {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("no request reached the server")
	}
	return f.requests[len(f.requests)-1]
}

func (f *fakeIndex) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeIndex) set(fn func(*fakeIndex)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newClock() *clock { return &clock{t: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)} }

type indexFixture struct {
	srv   *httptest.Server
	fake  *fakeIndex
	clock *clock
	cache string
	url   string
}

func newIndexFixture(t *testing.T) *indexFixture {
	t.Helper()
	fake := &fakeIndex{body: readRealIndex(t), etag: `"v1"`}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	return &indexFixture{
		srv: srv, fake: fake, clock: newClock(),
		cache: filepath.Join(t.TempDir(), "cache", "registry-index.json"),
		url:   srv.URL + "/registry-plugins.json",
	}
}

// client returns a fresh IndexClient (each one fetches once).
func (f *indexFixture) client(t *testing.T) *IndexClient {
	t.Helper()
	c, err := NewIndexClient(Options{
		RegistryURL: f.url, CacheFile: f.cache, Now: f.clock.Now,
		HTTPClient: f.srv.Client(), Timeout: 5 * time.Second, UserAgent: "fledge/test",
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestIndexClientCachesAndRevalidates(t *testing.T) {
	t.Parallel()
	f := newIndexFixture(t)
	ctx := context.Background()

	res, err := f.client(t).Search(ctx, Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 41 || res.Stale != nil {
		t.Fatalf("first search: %d entries, stale %v", len(res.Entries), res.Stale)
	}
	if res.Source != f.url {
		t.Errorf("source = %q, want %q", res.Source, f.url)
	}
	req := f.fake.lastRequest(t)
	if req.Header.Get("If-None-Match") != "" || req.Header.Get("User-Agent") != "fledge/test" {
		t.Errorf("first request headers: %v", req.Header)
	}
	var rec cacheRecord
	data, err := os.ReadFile(f.cache)
	if err != nil {
		t.Fatalf("cache not written: %v", err)
	}
	if err := json.Unmarshal(data, &rec); err != nil || rec.ETag != `"v1"` || rec.URL != f.url || !rec.FetchedAt.Equal(f.clock.Now()) {
		t.Fatalf("cache record = %+v (err %v)", rec, err)
	}

	// A second process revalidates and gets 304: the cache answers, fresh.
	f.clock.Advance(time.Hour)
	f.fake.set(func(fi *fakeIndex) { fi.body = []byte("this body must not be read on a 304") })
	res, err = f.client(t).Lookup(ctx, "standup")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 1 || res.Entries[0].Name != "fledge-plugin-standup" || res.Stale != nil {
		t.Fatalf("lookup after 304: %+v", res)
	}
	if got := f.fake.lastRequest(t).Header.Get("If-None-Match"); got != `"v1"` {
		t.Errorf("If-None-Match = %q, want %q", got, `"v1"`)
	}
	data, _ = os.ReadFile(f.cache)
	_ = json.Unmarshal(data, &rec)
	if !rec.FetchedAt.Equal(f.clock.Now()) {
		t.Errorf("a 304 did not refresh fetched_at: %v, want %v", rec.FetchedAt, f.clock.Now())
	}

	// A changed index replaces the cache.
	f.fake.set(func(fi *fakeIndex) {
		fi.etag = `"v2"`
		fi.body = []byte(`[{"name":"fledge-plugin-new","repo":"https://github.com/o/fledge-plugin-new"}]`)
	})
	res, err = f.client(t).Search(ctx, Query{})
	if err != nil || len(res.Entries) != 1 || res.Entries[0].Name != "fledge-plugin-new" {
		t.Fatalf("after change: %+v, %v", res, err)
	}
	data, _ = os.ReadFile(f.cache)
	_ = json.Unmarshal(data, &rec)
	if rec.ETag != `"v2"` {
		t.Errorf("cache etag = %q after change", rec.ETag)
	}
}

func TestIndexClientLastModified(t *testing.T) {
	t.Parallel()
	f := newIndexFixture(t)
	lm := "Wed, 06 May 2026 10:00:00 GMT"
	f.fake.set(func(fi *fakeIndex) { fi.etag = ""; fi.lastModified = lm })
	if _, err := f.client(t).Search(context.Background(), Query{}); err != nil {
		t.Fatal(err)
	}
	res, err := f.client(t).Search(context.Background(), Query{})
	if err != nil || len(res.Entries) != 41 {
		t.Fatalf("second search: %v", err)
	}
	req := f.fake.lastRequest(t)
	if req.Header.Get("If-Modified-Since") != lm || req.Header.Get("If-None-Match") != "" {
		t.Errorf("revalidation headers: %v", req.Header)
	}
}

func TestIndexClientFetchesOnce(t *testing.T) {
	t.Parallel()
	f := newIndexFixture(t)
	c := f.client(t)
	for _, q := range []string{"hello", "deps", ""} {
		if _, err := c.Search(context.Background(), Query{Text: q}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Lookup(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.fake.count(); n != 1 {
		t.Errorf("%d requests for one client, want 1", n)
	}
}

func TestIndexClientStaleCacheAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		break_   func(f *indexFixture)
		wantErr  string
		wantUnav bool
	}{
		{"server gone", func(f *indexFixture) { f.srv.Close() }, "", true},
		{"server error", func(f *indexFixture) { f.fake.set(func(fi *fakeIndex) { fi.status = 503 }) }, "HTTP 503", true},
		{"not found", func(f *indexFixture) { f.fake.set(func(fi *fakeIndex) { fi.status = 404 }) }, "HTTP 404", true},
		{"malformed index", func(f *indexFixture) {
			f.fake.set(func(fi *fakeIndex) { fi.etag = `"v3"`; fi.body = []byte(`[{"name":"x"}]`) })
		}, `entry 1 ("x"): missing repo`, false},
		{"oversized", func(f *indexFixture) {
			f.fake.set(func(fi *fakeIndex) { fi.etag = `"v3"`; fi.body = make([]byte, MaxIndexSize+10) })
		}, "larger than", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newIndexFixture(t)
			if _, err := f.client(t).Search(context.Background(), Query{}); err != nil {
				t.Fatal(err)
			}
			fetched := f.clock.Now()
			f.clock.Advance(3*time.Hour + 5*time.Minute)
			tt.break_(f)

			res, err := f.client(t).Search(context.Background(), Query{Text: "hello"})
			if err != nil {
				t.Fatalf("cache did not answer: %v", err)
			}
			if len(res.Entries) != 3 {
				t.Errorf("stale search found %d, want 3", len(res.Entries))
			}
			if res.Stale == nil {
				t.Fatal("result not marked stale")
			}
			if res.Stale.Age != 3*time.Hour+5*time.Minute || !res.Stale.FetchedAt.Equal(fetched) {
				t.Errorf("stale = %+v", res.Stale)
			}
			if errors.Is(res.Stale.Err, ErrUnavailable) != tt.wantUnav || !strings.Contains(res.Stale.Err.Error(), tt.wantErr) {
				t.Errorf("stale reason = %v", res.Stale.Err)
			}
			note := res.Stale.Note()
			if !strings.Contains(note, "from 3 hours ago") || !strings.Contains(note, tt.wantErr) {
				t.Errorf("note = %q", note)
			}

			// Without a cache the failure is an error.
			_ = os.Remove(f.cache)
			_, err = f.client(t).Search(context.Background(), Query{})
			if err == nil {
				t.Fatal("no cache and a broken server: search succeeded")
			}
			if errors.Is(err, ErrUnavailable) != tt.wantUnav || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v (unavailable %v)", err, errors.Is(err, ErrUnavailable))
			}
			if tt.name == "malformed index" {
				var ie *IndexError
				if !errors.As(err, &ie) || ie.Entry != 1 || ie.Source != f.url {
					t.Errorf("error = %#v, want an *IndexError for entry 1", err)
				}
			}
		})
	}
}

func TestIndexClientTimeout(t *testing.T) {
	t.Parallel()
	f := newIndexFixture(t)
	f.fake.set(func(fi *fakeIndex) { fi.block = true })
	c, err := NewIndexClient(Options{RegistryURL: f.url, CacheFile: f.cache, Now: f.clock.Now, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Search(context.Background(), Query{})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
}

func TestIndexClientCancelledIgnoresCache(t *testing.T) {
	t.Parallel()
	f := newIndexFixture(t)
	if _, err := f.client(t).Search(context.Background(), Query{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.client(t).Search(ctx, Query{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled (an interrupt is not a network failure)", err)
	}
}

func TestIndexClientIgnoresForeignOrCorruptCache(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"other url": `{"version":1,"url":"https://elsewhere/x.json","etag":"\"v1\"","fetched_at":"2026-01-01T00:00:00Z","body":[]}`,
		"corrupt":   `{"version":1,"url":`,
		"bad body":  `{"version":1,"url":"URL","etag":"\"v1\"","fetched_at":"2026-01-01T00:00:00Z","body":{"x":1}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIndexFixture(t)
			if err := os.MkdirAll(filepath.Dir(f.cache), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.cache, []byte(strings.ReplaceAll(content, "URL", f.url)), 0o644); err != nil {
				t.Fatal(err)
			}
			if name == "bad body" {
				// The server says "not modified" but the cached body is junk:
				// an error, not a crash or an empty list.
				_, err := f.client(t).Search(context.Background(), Query{})
				if err == nil || !strings.Contains(err.Error(), "(cached)") {
					t.Fatalf("err = %v", err)
				}
				return
			}
			res, err := f.client(t).Search(context.Background(), Query{})
			if err != nil || len(res.Entries) != 41 {
				t.Fatalf("search = %v", err)
			}
			if got := f.fake.lastRequest(t).Header.Get("If-None-Match"); got != "" {
				t.Errorf("revalidated a cache that is not ours: If-None-Match %q", got)
			}
		})
	}
}

func TestIndexClientFileURL(t *testing.T) {
	t.Parallel()
	abs, err := filepath.Abs(realIndex)
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	c, err := NewIndexClient(Options{RegistryURL: u})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Lookup(context.Background(), "fledge-plugin-metrics")
	if err != nil || len(res.Entries) != 1 || res.Entries[0].Version != "0.2.1" {
		t.Fatalf("lookup = %+v, %v", res, err)
	}

	missing := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(t.TempDir(), "nope.json"))}).String()
	c, err = NewIndexClient(Options{RegistryURL: missing})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Search(context.Background(), Query{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("missing file: err = %v, want ErrUnavailable", err)
	}

	dir := (&url.URL{Scheme: "file", Path: filepath.ToSlash(t.TempDir())}).String()
	c, _ = NewIndexClient(Options{RegistryURL: dir})
	if _, err := c.Search(context.Background(), Query{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: err = %v", err)
	}
}

func TestNewIndexClientRejects(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"ftp://host/x.json", "file://remotehost/x.json", "file:relative.json", "https:///x.json", "/abs/path.json", "https://user:secret@host/x.json\x00"} {
		_, err := NewIndexClient(Options{RegistryURL: u})
		if err == nil {
			t.Errorf("NewIndexClient(%q) succeeded", u)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("error leaks credentials: %v", err)
		}
	}
}

func TestCheckRedirect(t *testing.T) {
	t.Parallel()
	req := func(s string) *http.Request {
		u, _ := url.Parse(s)
		return &http.Request{URL: u}
	}
	if err := checkRedirect(req("http://h/x"), []*http.Request{req("https://h/x")}); err == nil {
		t.Error("https to http redirect allowed")
	}
	if err := checkRedirect(req("https://h2/x"), []*http.Request{req("https://h/x")}); err != nil {
		t.Errorf("https to https redirect refused: %v", err)
	}
	via := []*http.Request{req("http://h/1"), req("http://h/2"), req("http://h/3"), req("http://h/4"), req("http://h/5")}
	if err := checkRedirect(req("http://h/6"), via); err == nil {
		t.Error("sixth redirect allowed")
	}
}

func TestCacheAgeNote(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		10 * time.Second: "less than a minute", time.Minute: "1 minute", 59 * time.Minute: "59 minutes",
		time.Hour: "1 hour", 47 * time.Hour: "47 hours", 72 * time.Hour: "3 days",
	} {
		if got := cacheAgeNote(d); got != want {
			t.Errorf("cacheAgeNote(%v) = %q, want %q", d, got, want)
		}
	}
}
