package gitfetch

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/file"
	gitproto "github.com/go-git/go-git/v5/plumbing/transport/git"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// gitfetch chooses each operation's transport itself: go-git's table of
// transports, which every other use of go-git in the process shares (a
// push, a project's metadata), still holds go-git's own after a listing
// and a clone.
func TestOperationsLeaveGoGitsTransports(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t)
	ctx := context.Background()
	refs, err := ListRefs(ctx, f.url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := Resolve(refs, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Checkout(ctx, f.url, rev, filepath.Join(t.TempDir(), "out"), Options{}); err != nil {
		t.Fatal(err)
	}
	for scheme, want := range map[string]transport.Transport{
		"http": githttp.DefaultClient, "https": githttp.DefaultClient, "ssh": gitssh.DefaultClient,
		"git": gitproto.DefaultClient, "file": file.DefaultClient,
	} {
		if got := client.Protocols[scheme]; got != want {
			t.Errorf("go-git's %s transport is now %T, not its own", scheme, got)
		}
	}
}

// The scheme gitfetch registers serves its own operations only: a URL
// that names it outside an operation is refused, not fetched.
func TestOwnSchemeOutsideAnOperation(t *testing.T) {
	t.Parallel()
	if _, err := (dispatcher{}).NewUploadPackSession(nil, nil); err == nil {
		t.Fatal("the dispatcher opened a session without an operation")
	}
}
