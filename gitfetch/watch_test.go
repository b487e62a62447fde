package gitfetch

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// shortIdle is the idle window of tests whose server never answers: any
// window would do, since nothing ever arrives.
const shortIdle = 300 * time.Millisecond

// fetchBoth lists url's refs and, when that works, checks out its default
// branch into a directory of t's: the two network operations an install
// makes.
func fetchBoth(t *testing.T, ctx context.Context, url string, o Options) (string, error) {
	refs, err := ListRefs(ctx, url, o)
	if err != nil {
		return "", err
	}
	rev, err := Resolve(refs, "")
	if err != nil {
		return "", err
	}
	return Checkout(ctx, url, rev, filepath.Join(t.TempDir(), "tree"), o)
}

// wantTimeout checks err is the idle timeout, saying so and for how long.
func wantTimeout(t *testing.T, what string, err error, idle time.Duration) {
	t.Helper()
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("%s: %v, want a *TimeoutError", what, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "timed out waiting for the server") || !strings.Contains(msg, idle.String()) {
		t.Errorf("%s: %q should say it timed out waiting for the server, after %s", what, msg, idle)
	}
	if errors.Is(err, context.Canceled) {
		t.Errorf("%s: a timeout must not read as an interrupt", what)
	}
}

// A server that accepts the connection and never answers: the listing and
// the clone each give up after the idle window, over git:// and http://.
func TestSilentServerTimesOut(t *testing.T) {
	t.Parallel()
	addr, _ := silentServer(t)
	for _, url := range []string{"git://" + addr + "/o/fledge-plugin-x", "http://" + addr + "/o/fledge-plugin-x"} {
		t.Run(strings.SplitN(url, ":", 2)[0], func(t *testing.T) {
			t.Parallel()
			o := Options{IdleTimeout: shortIdle}
			_, err := ListRefs(context.Background(), url, o)
			wantTimeout(t, "ListRefs", err, shortIdle)
			dir := filepath.Join(t.TempDir(), "tree")
			_, err = Checkout(context.Background(), url, Revision{Ref: "0123456789abcdef0123456789abcdef01234567", Kind: KindCommit}, dir, o)
			wantTimeout(t, "Checkout", err, shortIdle)
		})
	}
}

// An HTTP server that sends its status and headers, then nothing.
func TestHeadersThenSilenceTimesOut(t *testing.T) {
	t.Parallel()
	_, err := ListRefs(context.Background(), headersThenSilence(t), Options{IdleTimeout: shortIdle})
	wantTimeout(t, "ListRefs", err, shortIdle)
}

// A server that answers the listing, then stops in the middle of the pack.
func TestStallInThePackTimesOut(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t)
	big := make([]byte, 64<<10)
	rand.Read(big)
	f.commit(t, "big", map[string]string{"blob.bin": string(big)})
	stall := pace{stallAfter: 16 << 10}
	for name, url := range map[string]string{
		"http": httpGitServer(t, f.dir, pace{}, stall),
		"git":  gitProtocolServer(t, f.dir, stall),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := fetchBoth(t, context.Background(), url, Options{IdleTimeout: shortIdle})
			wantTimeout(t, "fetch", err, shortIdle)
		})
	}
}

// A slow server that keeps sending is never cut off, however long the
// whole transfer takes.
func TestSlowServerThatKeepsSendingSucceeds(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t)
	big := make([]byte, 12<<10) // random: the pack cannot compress it
	rand.Read(big)
	want := f.commit(t, "big", map[string]string{"blob.bin": string(big)})
	// 512 B every 200 ms: the pack alone is 24 pieces, at least 4.6 s
	// whatever the machine's speed, longer than the 3 s window. The window
	// is fifteen times the pieces' spacing, so that a busy machine's pauses
	// in the server's own work (packing) fit in it.
	const idle = 3 * time.Second
	slow := pace{chunk: 512, every: 200 * time.Millisecond}
	for name, url := range map[string]string{
		"http": httpGitServer(t, f.dir, slow, slow),
		"git":  gitProtocolServer(t, f.dir, slow),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "tree")
			start := time.Now()
			refs, err := ListRefs(context.Background(), url, Options{IdleTimeout: idle})
			if err != nil {
				t.Fatal(err)
			}
			rev, err := Resolve(refs, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := Checkout(context.Background(), url, rev, dir, Options{IdleTimeout: idle})
			if err != nil {
				t.Fatalf("Checkout: %v", err)
			}
			if got != want.String() {
				t.Errorf("checked out %s, want %s", got, want)
			}
			if data, _ := os.ReadFile(filepath.Join(dir, "blob.bin")); !bytes.Equal(data, big) {
				t.Error("blob.bin differs")
			}
			// Not a timing assertion on fledge: the check that this test
			// made a transfer longer than one idle window.
			if time.Since(start) < idle {
				t.Fatalf("the transfer took less than an idle window; the test proves nothing")
			}
		})
	}
}

// Cancelling the caller's context ends a fetch the server keeps waiting
// at once, as an interrupt (context.Canceled), not as a timeout.
func TestCancelEndsAWaitingFetch(t *testing.T) {
	t.Parallel()
	addr, accepted := silentServer(t)
	for _, url := range []string{"git://" + addr + "/o/fledge-plugin-x", "http://" + addr + "/o/fledge-plugin-x"} {
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := ListRefs(ctx, url, Options{IdleTimeout: time.Hour})
			errc <- err
		}()
		// Cancelled once the server has the connection: a listing that
		// ends before connecting fails the test instead of leaving it
		// waiting for a connection that never comes.
		select {
		case <-accepted:
		case err := <-errc:
			cancel()
			t.Fatalf("%s: the listing ended before the server saw a connection: %v", url, err)
		case <-time.After(testutil.WaitLimit):
			cancel()
			t.Fatalf("%s: the server saw no connection within %v", url, testutil.WaitLimit)
		}
		cancel()
		err := testutil.Receive(t, url+": the cancelled listing to return", errc)
		var te *TimeoutError
		if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
			t.Errorf("%s: %v, want context.Canceled", url, err)
		}
	}
}
