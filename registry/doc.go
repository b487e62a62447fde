// Package registry owns names, refs and versions: where a plugin comes from
// and which revision of it is meant.
//
//   - Sources (source.go): parsing an install source (local path, git URL,
//     owner/repo, registry name, @ref) into a Source. A git URL is read,
//     and refused or given its identity, by package repourl;
//     SameRepository (samerepo.go) compares those identities. RedactURL,
//     RedactText and RedactError are internal/redact's redactor under the
//     names install and the commands have long used.
//   - Trust (trust.go): registry's names for package trust's tiers and
//     configuration, and the tier of a parsed source (package trust judges
//     its URL; package settings, the tier of an installed record).
//   - Indexes (client.go, index.go, cache.go, github.go, resolve.go):
//     finding plugins by name or query, either in a JSON index
//     (FLEDGE_REGISTRY_URL or registry.url; cached, revalidated, answering
//     offline from the cache) or through GitHub's search for the
//     fledge-plugin topic, and resolving a registry name to the one plugin
//     it names. Everything an index says is hostile text: callers sanitise
//     it, and the tier and install hint are computed by fledge, never taken
//     from the index.
//   - Queries (query.go): a search's author and topic (checked before they
//     reach GitHub's search syntax, and again on what comes back), and
//     narrowing a result by trust tier and count.
//   - The GitHub token (token.go): which environment variable holds it, and
//     where it may be sent (only over https or to a loopback host, and only
//     to the API's own host); search, install and publish all read it here.
//   - Curated lists (curated.go): the Rust fledge's default plugins at the
//     tags it pins, and its per-language recommendations.
//   - Versions (versions.go): the tags among a remote's refs (gitfetch
//     lists them without a clone), and semver constraint detection and
//     resolution to a tag and commit.
//
// It does not clone, build or install (package install does), read
// plugins.toml (lockfile), config.toml or the admin policy (settings,
// policy), decide tiers (trust) or print anything (cmd). Network access
// goes through an injected *http.Client and is bounded in size and time.
package registry
