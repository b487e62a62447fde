// Package inventory describes the installed plugins as a CycloneDX 1.6
// software bill of materials, so fleet tools can collect what each machine
// runs: one application component per plugin with its version, a package
// URL pinned to the installed commit (pkg:github/owner/repo@commit, else
// pkg:generic with the repository as vcs_url), the installed tree's content
// hash, the repository as a vcs reference, and as fledge:* properties its
// trust tier, source and pin, who signed it (fledge:provenance:level,
// signer, principal, format, vouched_by), what it is granted and requests,
// its approved hooks and build command, and what the admin policy denies it.
//
// It reads nothing itself: the command layer passes the plugins.toml records
// with their tiers.
//
// # Why not cyclonedx-go in the binary
//
// The document is written from the handful of CycloneDX types it needs
// (bom.go), not with github.com/CycloneDX/cyclonedx-go. That library
// compiles two regular expressions when its package initialises, and Go
// initialises every linked package before any command runs: linked into
// fledge it cost every command, `fledge --version` included, 0.19 ms and
// 409 allocations of start-up (GODEBUG=inittrace=1), plus encoding/xml's
// 0.03 ms, and 0.8 MB of binary — for a format one audit flag writes.
// cyclonedx-go stays the reference: the tests decode what this package
// writes with cyclonedx-go's own model and encoder and require the same
// document back (so no field is misnamed or out of its model), and validate
// it against the CycloneDX 1.6 JSON schema.
package inventory
