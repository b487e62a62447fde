// Package inventory describes the installed plugins as a CycloneDX 1.6
// software bill of materials (with github.com/CycloneDX/cyclonedx-go), so
// fleet tools can collect what each machine runs: one application component
// per plugin with its version, a package URL pinned to the installed commit
// (pkg:github/owner/repo@commit, else pkg:generic with the repository as
// vcs_url), the installed tree's content hash, the repository as a vcs
// reference, and as fledge:* properties its trust tier, source and pin, what
// it is granted and requests, its approved hooks and build command, and what
// the admin policy denies it.
//
// It reads nothing itself: the command layer passes the plugins.toml records
// with their tiers.
package inventory
