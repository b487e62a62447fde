package cli

import (
	"context"
	"fmt"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/revocation"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// refreshRevocations fetches the revocation lists the policy names by URL
// whose cached copy is older than its ttl, and returns the settings read
// again when one was; a list that cannot be fetched is used from the
// cache as it is (offline), with a warning. Install, update, sync, audit
// and policy call it: they may reach the network anyway. A plugin run
// never does: it reads the cache alone.
func refreshRevocations(ctx context.Context, f *Factory, paths home.Paths, set *settings.Settings) (*settings.Settings, error) {
	urls := set.Policy().RevocationURLs()
	if len(urls) == 0 {
		return set, nil
	}
	fetched := false
	for _, r := range revocation.Refresh(ctx, urls, paths.CacheDir(), revocation.Options{Client: f.HTTPClient, Now: f.Now}) {
		switch {
		case r.Fetched:
			fetched = true
		case r.Err != nil && !r.CachedAt.IsZero():
			fmt.Fprintf(f.IO.ErrOut, "warning: revocation list %s: %s; using the copy fetched at %s\n", termsafe.Escape(r.URL),
				errorText(r.Err.Error()), r.CachedAt.UTC().Format("2006-01-02T15:04:05Z"))
		case r.Err != nil:
			fmt.Fprintf(f.IO.ErrOut, "warning: revocation list %s: %s, and no copy was ever fetched\n", termsafe.Escape(r.URL), errorText(r.Err.Error()))
		}
	}
	if !fetched {
		return set, nil
	}
	return loadSettings(f, paths)
}
