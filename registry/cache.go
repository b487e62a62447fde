package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/renameio"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// IndexClient reads a plugin index from an http(s):// or file:// URL. An
// http(s) index is cached and revalidated with ETag / If-Modified-Since;
// when the server cannot be reached, the cache answers and the Result says
// how old it is. The index is fetched once per IndexClient.
type IndexClient struct {
	url       string
	fetch     fetch
	cacheFile string
	now       func() time.Time

	mu     sync.Mutex
	loaded *loadedIndex
}

type loadedIndex struct {
	entries []Entry
	stale   *Stale
}

// NewIndexClient returns a client for the index at o.RegistryURL.
func NewIndexClient(o Options) (*IndexClient, error) {
	o = o.withDefaults()
	u, err := url.Parse(o.RegistryURL)
	if err != nil {
		// url.Parse's error quotes the whole URL, credentials included.
		return nil, errors.New("registry URL is not a valid URL (want http://, https:// or file://)")
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return nil, fmt.Errorf("registry URL %q has no host", RedactURL(o.RegistryURL))
		}
	case "file":
		if _, err := fileURLPath(u); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("registry URL %q: want http://, https:// or file://", RedactURL(o.RegistryURL))
	}
	return &IndexClient{
		url:       o.RegistryURL,
		fetch:     fetch{client: o.HTTPClient, timeout: o.Timeout, userAgent: o.UserAgent},
		cacheFile: o.CacheFile,
		now:       o.Now,
	}, nil
}

// Search implements Index.
func (c *IndexClient) Search(ctx context.Context, q Query) (*Result, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	l, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	return &Result{Entries: searchIn(q.filter(l.entries), q.Text), Source: RedactURL(c.url), Stale: l.stale}, nil
}

// Lookup implements Index.
func (c *IndexClient) Lookup(ctx context.Context, name string) (*Result, error) {
	l, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	return &Result{Entries: lookupIn(l.entries, name), Source: RedactURL(c.url), Stale: l.stale}, nil
}

func (c *IndexClient) load(ctx context.Context) (*loadedIndex, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded != nil {
		return c.loaded, nil
	}
	u, _ := url.Parse(c.url) // checked in NewIndexClient
	var (
		l   *loadedIndex
		err error
	)
	if u.Scheme == "file" {
		l, err = c.loadFile(u)
	} else {
		l, err = c.loadHTTP(ctx)
	}
	if err != nil {
		return nil, err
	}
	c.loaded = l
	return l, nil
}

func (c *IndexClient) loadFile(u *url.URL) (*loadedIndex, error) {
	path, err := fileURLPath(u)
	if err != nil {
		return nil, err
	}
	data, err := bounded.ReadFile(path, MaxIndexSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	entries, err := DecodeIndex(data, RedactURL(c.url))
	if err != nil {
		return nil, err
	}
	return &loadedIndex{entries: entries}, nil
}

// loadHTTP fetches the index, revalidating the cached copy; on any failure
// to get a good index, a cached copy answers and says why.
func (c *IndexClient) loadHTTP(ctx context.Context) (*loadedIndex, error) {
	cached := readCache(c.cacheFile, c.url)
	entries, fresh, err := c.revalidate(ctx, cached)
	if err == nil {
		if fresh != nil {
			_ = writeCache(c.cacheFile, fresh) // a cache that cannot be written is only slower next time
		}
		return &loadedIndex{entries: entries}, nil
	}
	if ctx.Err() != nil || cached == nil {
		return nil, err
	}
	entries, derr := DecodeIndex(cached.Body, RedactURL(c.url)+" (cached)")
	if derr != nil {
		return nil, err
	}
	age := c.now().Sub(cached.FetchedAt)
	if age < 0 {
		age = 0
	}
	return &loadedIndex{entries: entries, stale: &Stale{FetchedAt: cached.FetchedAt, Age: age, Err: err}}, nil
}

// revalidate asks the server for the index. It returns the entries and the
// cache record to write (nil when nothing changed on disk worth writing).
func (c *IndexClient) revalidate(ctx context.Context, cached *cacheRecord) ([]Entry, *cacheRecord, error) {
	source := RedactURL(c.url)
	header := http.Header{"Accept": {"application/json"}}
	if cached != nil {
		if cached.ETag != "" {
			header.Set("If-None-Match", cached.ETag)
		}
		if cached.LastModified != "" {
			header.Set("If-Modified-Since", cached.LastModified)
		}
	}
	resp, body, err := c.fetch.get(ctx, c.url, header)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrUnavailable, source, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && cached != nil:
		entries, err := DecodeIndex(cached.Body, source+" (cached)")
		if err != nil {
			return nil, nil, err
		}
		rec := *cached
		rec.FetchedAt = c.now().UTC()
		return entries, &rec, nil
	case resp.StatusCode == http.StatusOK:
		entries, err := DecodeIndex(body, source)
		if err != nil {
			return nil, nil, err
		}
		rec := &cacheRecord{
			Version:      cacheVersion,
			URL:          c.url,
			ETag:         resp.Header.Get("ETag"),
			LastModified: resp.Header.Get("Last-Modified"),
			FetchedAt:    c.now().UTC(),
			Body:         json.RawMessage(body),
		}
		return entries, rec, nil
	}
	return nil, nil, fmt.Errorf("%w: %w", ErrUnavailable, &StatusError{What: source, Status: resp.StatusCode})
}

const cacheVersion = 1

// cacheRecord is the cache file: the last good index body and what is
// needed to revalidate it.
type cacheRecord struct {
	Version      int             `json:"version"`
	URL          string          `json:"url"`
	ETag         string          `json:"etag,omitempty"`
	LastModified string          `json:"last_modified,omitempty"`
	FetchedAt    time.Time       `json:"fetched_at"`
	Body         json.RawMessage `json:"body"`
}

// readCache returns the cached index for rawURL, or nil when there is none
// usable (absent, for another URL, unreadable or corrupt: the cache is
// disposable and never an error).
func readCache(path, rawURL string) *cacheRecord {
	if path == "" {
		return nil
	}
	data, err := bounded.ReadFile(path, MaxIndexSize+64<<10)
	if err != nil {
		return nil
	}
	var rec cacheRecord
	if json.Unmarshal(data, &rec) != nil || rec.Version != cacheVersion || rec.URL != rawURL || len(rec.Body) == 0 {
		return nil
	}
	return &rec
}

func writeCache(path string, rec *cacheRecord) error {
	if path == "" {
		return nil
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return renameio.WriteFile(path, data)
}

// fileURLPath turns file:///abs/path (or file://localhost/abs/path) into a
// local path.
func fileURLPath(u *url.URL) (string, error) {
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("registry URL %q: a file URL must not name a host", RedactURL(u.String()))
	}
	p := u.Path
	if p == "" {
		p = u.Opaque
	}
	if p == "" {
		return "", fmt.Errorf("registry URL %q has no path", RedactURL(u.String()))
	}
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("registry URL %q: the path must be absolute (file:///path)", RedactURL(u.String()))
	}
	return p, nil
}

// cacheAgeNote renders a staleness for humans: "3 hours", "2 days".
func cacheAgeNote(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	}
	return plural(int(d/(24*time.Hour)), "day")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Note is a one-line explanation of a stale answer for stderr, e.g.
// "could not refresh the registry index (…); showing the cached copy from 3
// hours ago".
// Like all network text it must be sanitised before display.
func (s *Stale) Note() string {
	reason := s.Err.Error()
	if errors.Is(s.Err, ErrUnavailable) {
		reason = strings.TrimPrefix(reason, ErrUnavailable.Error()+": ")
	}
	return fmt.Sprintf("could not refresh the registry index (%s); showing the cached copy from %s ago", reason, cacheAgeNote(s.Age))
}
