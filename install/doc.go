// Package install orchestrates installing and removing plugins as
// transactions: resolve the source, fetch it into a staging directory beside
// the target, read and validate its manifest, ask for approval of what it
// requests (capabilities, hooks, the build command), build, check binaries,
// move into place, link commands, run post_install, and record the entry in
// plugins.toml last. A failure at any step leaves no directory, link or
// entry behind. An interrupted run's half-changed plugins are recovered by
// the next command of any kind (RecoverInterrupted, which only takes the
// lock when the trash holds something a dead process left); its other
// leftovers by the next change.
//
// Every kind of source (a git repository, a local directory) is reached
// through a fetcher (fetcher.go): locate, the policy's identity, its tier,
// list refs, resolve and check out. newFetcher is the one switch on the
// kind, so a new kind is a file and a case.
//
// It decides what the user's consent covers (the approval rules of the
// contract) but not how consent is asked: the caller passes a callback.
// Grants change after install in one place, Installer.ChangeGrants, under
// the same rules and locks. The admin policy (package policy) narrows all of
// it: denied sources are not fetched, loose pins and young tags are not
// installed, and grants stay within what it allows the plugin's tier (see
// policy.go). Every change of grants is recorded in the grant log (package
// grantlog) in the same transaction as plugins.toml. Its errors carry data (what is missing, what a
// plugin requests), never command-line flags: the CLI adds the hints.
//
// Who signed a fetched revision (provenance.go) is verified by the git
// fetcher on the fetch's own objects, before its .git goes, against the
// allowed-signers files the settings name (package provenance), and
// recorded as the entry's lockfile.Provenance; a fetcher of another kind
// (an OCI artifact) fills the same field of fetched from its own
// signature, and everything after it (the policy's [provenance] require,
// the approval form, the record, the grant log) applies unchanged. Update
// and sync refuse a lower level or another signer than recorded
// (*ProvenanceError) unless Installer.AcceptProvenance or
// Consent.ConfirmProvenance accepts it; the grant log records the change
// and how it was accepted. Nothing here runs when a plugin runs.
package install
