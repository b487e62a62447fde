// Package revocation fetches the revocation lists an admin policy names by
// URL ([revocation] urls) into the cache package policy reads them from
// (policy.RevocationCacheFile), when the cached copy is older than the
// policy's ttl.
//
// A fetch is bounded as every fetch of fledge's is: a timeout on top of
// the caller's context, https only (redirects too), and at most
// policy.MaxRevocationList bytes read. A body that is not a valid list
// never replaces the cache; the copy is written beside it and renamed
// into place, so a reader sees the old list or the new one. When a fetch
// fails the cache is used as it is (offline), and Refresh says so.
//
// It does not decide what a list revokes (package policy does), nor run
// in the plugin-run path: the runner reads the cache alone and never
// touches the network.
package revocation
