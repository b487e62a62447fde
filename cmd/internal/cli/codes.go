package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/corvidlabs/fledge-go/binfmt"
	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/provenance"
	"github.com/corvidlabs/fledge-go/treehash"
)

// Error codes specific to installing.
const (
	CodeUnsafePlugin    = "unsafe_plugin"
	CodeProtocolVersion = "protocol_version_mismatch"
	CodeTagMoved        = "tag_moved"
	CodeForcePushed     = "force_pushed"
	CodeNotReproducible = "not_reproducible"
	CodeTooLarge        = "plugin_too_large"
	// CodeUnsupportedPlatform: a command binary built for another OS or
	// architecture (the runner's code of the same name at run time).
	CodeUnsupportedPlatform = "unsupported_platform"
	// CodeNotRequested: a grant of what the plugin does not request (the
	// protocol taxonomy's name for it).
	CodeNotRequested = "capability_not_declared"
	// The installed plugin.toml is not the approved one, or it is gone
	// (the runner's codes for the same states).
	CodeManifestChanged = "manifest_changed"
	CodePluginMissing   = "plugin_missing"
	// CodePluginDisabled: an entry point of a disabled plugin (the
	// runner's code of the same name at run time).
	CodePluginDisabled = "plugin_disabled"
	// An update or sync fetched a revision signed at a lower level, or by
	// another signer, than recorded (and nothing accepted it); a
	// signature that does not match what it signs.
	CodeProvenanceDowngrade = "provenance_downgrade"
	CodeSignerChanged       = "signer_changed"
	CodeBadSignature        = "bad_signature"
)

// classify maps the library packages' typed errors and sentinels to error
// codes.
func classify(err error) string {
	var (
		appr   *install.ApprovalError
		confl  *install.ConflictError
		nameCf *install.NameConflictError
		inval  *manifest.InvalidError
		syn    *manifest.SyntaxError
		proto  *manifest.ProtocolError
		srcErr *install.SourceError
		fetch  *install.FetchError
		hook   *install.HookError
		unsafe *install.UnsafeCommandError
		amb    *lockfile.AmbiguousError
		corr   *lockfile.CorruptError
		future *lockfile.FutureError
		man    *install.InstalledManifestError
	)
	switch {
	case errors.As(err, new(*policy.DeniedError)), errors.As(err, new(*policy.InvalidError)):
		return CodePolicyDenied
	case errors.As(err, new(*lockfile.DisabledError)):
		return CodePluginDisabled
	case errors.As(err, &appr):
		return CodeApprovalRequired
	case errors.Is(err, errPromptAborted):
		return CodeInterrupted
	case errors.Is(err, install.ErrAlreadyInstalled):
		return CodeAlreadyInstalled
	case errors.As(err, new(*install.NotRequestedError)):
		return CodeNotRequested
	case errors.As(err, &man):
		if man.Changed {
			return CodeManifestChanged
		}
		return CodePluginMissing
	case errors.As(err, &confl):
		return CodeCommandConflict
	case errors.As(err, &nameCf):
		return CodeNameConflict
	case errors.As(err, &proto):
		return CodeProtocolVersion
	case errors.As(err, &inval), errors.As(err, &syn), errors.As(err, new(*manifest.TypeError)), errors.As(err, new(*manifest.FoldedKeyError)), errors.Is(err, manifest.ErrNoManifest),
		errors.Is(err, manifest.ErrNotRegular), errors.Is(err, manifest.ErrTooLarge):
		return CodeInvalidManifest
	case errors.Is(err, gitfetch.ErrTooLarge):
		return CodeTooLarge
	case errors.Is(err, install.ErrProvenanceDowngrade):
		return CodeProvenanceDowngrade
	case errors.Is(err, install.ErrSignerChanged):
		return CodeSignerChanged
	case errors.As(err, new(*provenance.BadSignatureError)):
		return CodeBadSignature
	case errors.As(err, &srcErr):
		return CodeInvalidSource
	case errors.As(err, &fetch):
		return CodeFetchFailed
	case errors.As(err, &hook):
		if hook.Hook == manifest.HookBuild {
			return CodeBuildFailed
		}
		return CodeHookFailed
	case errors.Is(err, treehash.ErrUnsafeTree), errors.As(err, &unsafe):
		return CodeUnsafePlugin
	case errors.Is(err, lockfile.ErrNotInstalled):
		return CodeNotInstalled
	case errors.Is(err, install.ErrTagMoved):
		return CodeTagMoved
	case errors.Is(err, install.ErrForcePushed):
		return CodeForcePushed
	case errors.Is(err, install.ErrNotReproducible):
		return CodeNotReproducible
	case errors.As(err, &amb):
		return CodeAmbiguous
	case errors.As(err, &corr), errors.As(err, &future):
		return CodeStateCorrupt
	case errors.As(err, new(*install.RecoveryError)):
		return CodeStateCorrupt
	case errors.As(err, new(*binfmt.MismatchError)):
		return CodeUnsupportedPlatform
	}
	return ""
}

// hintFor adds the advice a human needs to act on err. Hints that need
// the command line or the plugin's record (approval, reinstall) are added
// where those are known (see hints.go).
func hintFor(err error) string {
	var (
		appr   *install.ApprovalError
		confl  *install.ConflictError
		nameCf *install.NameConflictError
		fp     *install.ForcePushedError
		rec    *install.RecoveryError
		notReq *install.NotRequestedError
		man    *install.InstalledManifestError
		amb    *lockfile.AmbiguousError
		hook   *install.HookError
		syn    *manifest.SyntaxError
		// disabled is a plugin turned off (fledge plugins disable).
		disabled *lockfile.DisabledError
	)
	switch {
	case errors.Is(err, context.Canceled):
		return "" // the user's Ctrl+C: no step to fix, nobody to tell
	case errors.As(err, new(*policy.InvalidError)):
		return "fix the file at the line named (or ask whoever manages it): fledge applies no policy it cannot read in full"
	case errors.As(err, new(*policy.DeniedError)):
		return "the admin policy decides this, not a flag; see what it allows: " + commandLine("plugins", "policy")
	case errors.As(err, &disabled):
		return "enable it first: " + commandLine("plugins", "enable", disabled.Plugin)
	case errors.As(err, &appr):
		return "grant by name what it needs: " + strings.Join(appr.Missing, ", ")
	case errors.As(err, &confl):
		return "remove that plugin first: " + commandLine("plugins", "remove", confl.Owner)
	case errors.As(err, &nameCf):
		return "remove it first: " + commandLine("plugins", "remove", nameCf.Installed) + "; or name the plugin differently"
	case errors.Is(err, gitfetch.ErrTooLarge):
		return "if you trust it, raise max_size or max_files under [install] in config.toml"
	case errors.Is(err, lockfile.ErrNotInstalled):
		return "see what is installed: " + commandLine("plugins", "list")
	case errors.As(err, &amb):
		return "name one of them in full, e.g.: " + commandLine("plugins", "info", amb.Candidates[0])
	case errors.As(err, &rec):
		return "recovery must lock and write FLEDGE_HOME and read plugins.toml; once it can, any fledge plugins command recovers them: " + commandLine("plugins", "list")
	case errors.As(err, &fp):
		return "review the new history; if you trust it: " + commandLine("plugins", "update", fp.Plugin, "--force")
	case errors.As(err, new(*install.ProvenanceError)):
		return "ask the plugin's author whether the change is theirs (a new release key, a release made without signing): an account takeover looks the same; to accept it, run the same command on a terminal, or with --accept-provenance \"<why>\" (the grant log records who and why)"
	case errors.As(err, new(*provenance.BadSignatureError)):
		return "do not install it: what was signed has been changed since; tell the plugin's author"
	case errors.As(err, new(*provenance.SignersError)):
		return "fix that file, or take it out of [provenance] allowed_signers (in config.toml, or the policy that names it)"
	case errors.As(err, &notReq):
		return "see what it requests and is granted: " + commandLine("plugins", "info", notReq.Plugin)
	case errors.As(err, &man) && man.Changed:
		return "see what changed: " + commandLine("plugins", "verify", man.Plugin)
	case errors.As(err, &hook) && hook.Confined && deniedByKernel(hook.Tail):
		return "it ran confined by the kernel and was refused access (SECURITY.md lists what a " + hook.Hook + " step may read and write); if you trust it, run the same command again with FLEDGE_CONFINE=off set"
	case errors.As(err, &hook):
		return "its output is above: a tool it needs may be missing here, or the plugin's " + hook.Hook + " step is broken (tell its author)"
	case errors.As(err, new(*manifest.TypeError)):
		return "each key named wants the kind of value said: tell the plugin's author ('fledge plugins validate <dir>' checks a plugin)"
	case errors.As(err, &syn):
		return "the plugin's plugin.toml is not valid TOML at that place: tell its author ('fledge plugins validate <dir>' checks a plugin)"
	case errors.Is(err, treehash.ErrUnsafeTree):
		return "fledge refuses a plugin whose files point outside it: tell its author"
	}
	return sourceHint(err)
}

// sourceHint is the advice for a source that could not be found, reached
// or read.
func sourceHint(err error) string {
	var remote *gitfetch.RemoteError
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.Is(err, install.ErrNotDirectory):
		return "name the plugin's directory, the one that holds its plugin.toml"
	case errors.Is(err, install.ErrNoSuchPath):
		return "check the path: a local plugin is ./dir, ../dir or /abs/dir (owner/repo installs from GitHub)"
	case errors.Is(err, transport.ErrRepositoryNotFound), errors.Is(err, transport.ErrAuthenticationRequired),
		errors.Is(err, transport.ErrAuthorizationFailed):
		return "check the source's spelling (owner/repo is looked up under FLEDGE_GITHUB_URL, https://github.com by default); for a private GitHub repository, set GITHUB_TOKEN or GH_TOKEN"
	case errors.Is(err, http.ErrSchemeMismatch):
		return "the registry speaks plain http, which anyone on the network can tamper with; if this network is yours, list it in config.toml: [oci] plain_http = [\"HOST:PORT\"]"
	case errors.Is(err, ociartifact.ErrCredentials):
		return "log in to the registry with docker login HOST or oras login HOST: fledge reads the credentials (and credential helpers) of the docker configuration"
	case errors.Is(err, ociartifact.ErrNotFound):
		return "check the repository, tag or digest (oras repo tags HOST/REPO lists the tags)"
	case errors.Is(err, ociartifact.ErrNotPlugin):
		return "that reference is not a fledge plugin: fledge plugins mirror pushes plugins in fledge's format"
	case errors.Is(err, ociartifact.ErrBadLayer):
		return "the registry served a tree that does not match its digest or is not a plain plugin tree: tell whoever runs it"
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return "push the plugin's files to it first"
	case errors.Is(err, gitfetch.ErrRefNotFound):
		return "name a tag, branch or commit the repository has (git ls-remote <url> lists them), or leave @REF off for its default branch"
	case errors.Is(err, manifest.ErrNoManifest):
		return "a fledge plugin has plugin.toml at its root: check that the source is one (repositories are named fledge-plugin-<name>)"
	case errors.As(err, &remote) && (errors.As(err, &dns) || errors.As(err, &op) || errors.Is(err, context.DeadlineExceeded)):
		return "check your network connection and the source's address, then try again"
	case errors.As(err, &remote):
		return "check the source's address; a certificate this machine does not trust may mean a proxy or a wrong host"
	}
	return platformHint(err, "")
}

// platformHint is the advice for a binary built for another platform:
// build it here, or get one built for here. source, when known, is what
// to reinstall from.
func platformHint(err error, source string) string {
	var me *binfmt.MismatchError
	if !errors.As(err, &me) {
		return ""
	}
	again := "install it again"
	if source != "" {
		again = "reinstall it: fledge plugins install " + source + " --force"
	}
	return fmt.Sprintf("build it from source on this machine: install the toolchain its build uses (cargo, go, swift, …) and %s; or ask its author for a %s/%s build", again, me.GOOS, me.GOARCH)
}

// deniedByKernel says whether a command's output reports an access the
// system refused ("permission denied", EACCES; "operation not permitted",
// EPERM), as a confined build reaching outside its profile reports it.
func deniedByKernel(output string) bool {
	o := strings.ToLower(output)
	return strings.Contains(o, "permission denied") || strings.Contains(o, "operation not permitted")
}
