package gitfetch

import (
	"context"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

// trackingWriter is a progress writer that also tracks transfers.
type trackingWriter struct {
	mu     sync.Mutex
	events []string
}

func (w *trackingWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *trackingWriter) TransferStarted(url string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, "start "+url)
}
func (w *trackingWriter) TransferEnded(url string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, "end "+url)
}

// A progress writer that tracks transfers hears of each one, listing and
// fetching, even from a file:// remote that sends no progress messages;
// each start is followed by its end, also when the transfer fails.
func TestProgressTracksTransfers(t *testing.T) {
	f, _ := pluginRepo(t)
	w := &trackingWriter{}
	o := Options{Progress: w}
	refs, err := ListRefs(context.Background(), f.url, o)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := Resolve(refs, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Checkout(context.Background(), f.url, rev, filepath.Join(t.TempDir(), "co"), o); err != nil {
		t.Fatal(err)
	}
	missing := "file://" + filepath.Join(t.TempDir(), "nothing-here")
	if _, err := ListRefs(context.Background(), missing, o); err == nil {
		t.Fatal("listing a missing repository worked")
	}
	want := []string{"start " + f.url, "end " + f.url, "start " + f.url, "end " + f.url, "start " + missing, "end " + missing}
	if !reflect.DeepEqual(w.events, want) {
		t.Fatalf("events %q, want %q", w.events, want)
	}
}
