package cli

import (
	"errors"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/treehash"
)

// Error codes specific to installing.
const (
	CodeUnsafePlugin    = "unsafe_plugin"
	CodeProtocolVersion = "protocol_version_mismatch"
	CodeTagMoved        = "tag_moved"
	CodeNotReproducible = "not_reproducible"
	CodeTooLarge        = "plugin_too_large"
)

// classify maps the library packages' typed errors and sentinels to error
// codes.
func classify(err error) string {
	var (
		appr   *install.ApprovalError
		confl  *install.ConflictError
		inval  *manifest.InvalidError
		syn    *manifest.SyntaxError
		proto  *manifest.ProtocolError
		srcErr *install.SourceError
		fetch  *install.FetchError
		hook   *install.HookError
		amb    *lockfile.AmbiguousError
		corr   *lockfile.CorruptError
		future *lockfile.FutureError
	)
	switch {
	case errors.As(err, &appr):
		return CodeApprovalRequired
	case errors.Is(err, errPromptAborted):
		return CodeInterrupted
	case errors.Is(err, install.ErrAlreadyInstalled):
		return CodeAlreadyInstalled
	case errors.As(err, &confl):
		return CodeCommandConflict
	case errors.As(err, &proto):
		return CodeProtocolVersion
	case errors.As(err, &inval), errors.As(err, &syn), errors.Is(err, manifest.ErrNoManifest),
		errors.Is(err, manifest.ErrNotRegular), errors.Is(err, manifest.ErrTooLarge):
		return CodeInvalidManifest
	case errors.Is(err, gitfetch.ErrTooLarge):
		return CodeTooLarge
	case errors.As(err, &srcErr):
		return CodeInvalidSource
	case errors.As(err, &fetch):
		return CodeFetchFailed
	case errors.As(err, &hook):
		if hook.Hook == manifest.HookBuild {
			return CodeBuildFailed
		}
		return CodeHookFailed
	case errors.Is(err, treehash.ErrUnsafeTree):
		return CodeUnsafePlugin
	case errors.Is(err, lockfile.ErrNotInstalled):
		return CodeNotInstalled
	case errors.Is(err, install.ErrTagMoved):
		return CodeTagMoved
	case errors.Is(err, install.ErrNotReproducible):
		return CodeNotReproducible
	case errors.As(err, &amb):
		return CodeAmbiguous
	case errors.As(err, &corr), errors.As(err, &future):
		return CodeStateCorrupt
	}
	return ""
}

// hintFor adds the advice a human needs to act on err.
func hintFor(err error) string {
	var (
		appr  *install.ApprovalError
		confl *install.ConflictError
	)
	switch {
	case errors.As(err, &appr):
		return appr.Hint()
	case errors.Is(err, install.ErrAlreadyInstalled):
		return "use --force to reinstall it"
	case errors.As(err, &confl):
		return "remove that plugin first: fledge plugins remove " + confl.Owner
	case errors.Is(err, gitfetch.ErrTooLarge):
		return "if you trust it, raise max_size or max_files under [install] in config.toml"
	case errors.Is(err, lockfile.ErrNotInstalled):
		return "run 'fledge plugins list' to see what is installed"
	}
	return ""
}
