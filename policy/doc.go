// Package policy reads administrators' policy files and decides what they
// allow: which sources may be installed, the most each trust tier may be
// granted, whether hooks and build commands may run, what an install must
// be pinned to, how old a tag must be, which GitHub owners a user's
// config.toml may trust, which installed commands agents are offered
// as tools ([tools] allow and deny, tools.go), and whether native plugins
// must run under kernel confinement and whether it may be turned off
// ([confinement] require and allow_off, confinement.go), and whether
// plugins run under a system policy that is not protected (owned by root
// and writable by no one else, in directories that are too: [protection]
// require, protect.go).
//
// A Set is a stack of layers: the system file (always applied when
// present; its path is injected, never read from the environment), the
// *.toml files of the policy.d directory beside it in lexical order
// (drop-ins, dropin.go: system layers too, each judged for protection as
// the system file is; other entries are listed, not read), the files
// listed in FLEDGE_POLICY, and a [policy] table in config.toml. Layers
// only ever narrow: a source must pass every layer's allow list and no
// layer's deny list, a capability must be allowed by every layer that
// limits its tier, hooks run only where every layer lets them, the
// strictest pin and the longest tag age win, trusted owners are the
// intersection, confinement is required when any layer requires it and
// may not be turned off when any layer says allow_off = false. So no user, project or environment setting can widen what
// the system policy forbids. Each decision is made layer by layer, so a
// refusal names the rule and the file it came from.
//
// Source rules and the sources they judge are read by package repourl,
// the one git-URL parser: a rule matches every spelling of the repository
// it names, a file:// repository and a local directory by its real path,
// and a URL the parser refuses passes no source rule. A rule may pin
// what it names to one commit (pattern@<commit>) or one tree
// (pattern@tree:fh1:…, the fetched tree's hash as treehash computes it
// and plugins.toml records it as source_hash); a pinned rule judges a
// source whose commit or tree is not known yet (Source.Pending,
// TreePending) as a candidate, and callers judge it again once it is:
// install before listing refs, once a ref resolves, and once the tree is
// fetched and hashed; the runner on the record.
//
// It fails closed: an unknown key, an unknown tier or capability, a bad
// pattern or duration, or a file that cannot be read (other than a missing
// system file) is an error naming the file, and callers refuse everything
// the policy governs until it is fixed.
//
// It does not decide tiers (package trust names and decides them, from a
// trust.Config this package may narrow; package settings applies it), ask anyone anything, or record what it refused
// (package grantlog does); install, runner and the command layer apply it.
package policy
