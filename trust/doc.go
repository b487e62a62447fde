// Package trust owns how far fledge trusts where a plugin came from: the
// tiers and their names (the one definition: registry, policy, install,
// the runner and every command use these), the trust configuration
// (config.toml's [trust] orgs and users) and the tier of a source's URL.
//
// A tier is decided from the URL alone, never from what an index or a
// manifest claims: official for github.com/CorvidLabs, team for a github.com
// owner the configuration trusts, local for a directory on this machine,
// and unverified for everything else, including any URL with something
// unusual about it.
//
// It is a leaf (but for termsafe, which shortens what it quotes in errors):
// it reads no files and knows nothing of records or of the
// admin policy. Which configuration is in force (config.toml's narrowed by
// the policy), the tier of an installed record and what that record may do
// are package settings' answers, built on this one.
package trust
