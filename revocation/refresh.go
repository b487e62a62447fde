package revocation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/rogpeppe/go-internal/renameio"

	"github.com/corvidlabs/fledge-go/internal/redact"
	"github.com/corvidlabs/fledge-go/policy"
)

// DefaultTimeout bounds each fetch unless Options.Timeout says otherwise.
const DefaultTimeout = 30 * time.Second

// Options are how Refresh fetches.
type Options struct {
	// Client makes the requests; nil is a client that refuses redirects
	// away from https.
	Client *http.Client
	// Timeout bounds each fetch (default DefaultTimeout).
	Timeout time.Duration
	// Now is the clock the cache's age is judged by (default time.Now).
	Now func() time.Time
}

// Result is what Refresh did with one list.
type Result struct {
	URL string
	// Fetched is true when a new copy was written; Err says why a
	// fetch that was due failed (the cache, if any, is then used as it
	// is). CachedAt is when the copy in use was fetched (zero: none).
	Fetched  bool
	Err      error
	CachedAt time.Time
}

// Refresh fetches each list whose cache under dir is missing or older
// than its TTL.
func Refresh(ctx context.Context, lists []policy.RevocationURL, dir string, o Options) []Result {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Client == nil {
		o.Client = &http.Client{CheckRedirect: httpsOnly}
	}
	var out []Result
	for _, l := range lists {
		path := policy.RevocationCacheFile(dir, l.URL)
		r := Result{URL: l.URL}
		if fi, err := os.Stat(path); err == nil {
			r.CachedAt = fi.ModTime()
			if o.Now().Sub(fi.ModTime()) < l.TTL {
				out = append(out, r)
				continue
			}
		}
		if err := fetch(ctx, l.URL, path, o); err != nil {
			r.Err = err
		} else {
			r.Fetched, r.CachedAt = true, o.Now()
		}
		out = append(out, r)
	}
	return out
}

func httpsOnly(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != "https" {
		return fmt.Errorf("redirected to %s, which is not https", redact.URL(req.URL.String()))
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

func fetch(ctx context.Context, url, path string, o Options) error {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", redact.URL(url), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetch %s: %s", redact.URL(url), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, policy.MaxRevocationList+1))
	if err != nil {
		return fmt.Errorf("fetch %s: %w", redact.URL(url), err)
	}
	if len(data) > policy.MaxRevocationList {
		return fmt.Errorf("fetch %s: the list is larger than %d bytes", redact.URL(url), policy.MaxRevocationList)
	}
	if _, err := policy.ParseRevocations(url, data); err != nil {
		return fmt.Errorf("%w (the cached copy, if any, is kept)", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := renameio.WriteFile(path, data); err != nil {
		return err
	}
	now := o.Now()
	return os.Chtimes(path, now, now)
}
