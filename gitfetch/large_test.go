package gitfetch

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
)

func randomText(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return string(b)
}

// A file larger than the size objects are streamed above is checked out
// whole and intact.
func TestCheckoutStreamsLargeFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	big := randomText(3*largeObject + 17)
	want := f.commit(t, "c", map[string]string{"plugin.toml": "[plugin]\nname = \"p\"\n", "big.bin": big})
	rev := revisionOf(t, f.url, "")
	dir := filepath.Join(t.TempDir(), "tree")
	got, err := Checkout(context.Background(), f.url, rev, dir, Options{})
	if err != nil || got != want.String() {
		t.Fatalf("Checkout = %s, %v; want %s", got, err, want)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "big.bin")); err != nil || !bytes.Equal(data, []byte(big)) {
		t.Errorf("big.bin differs (%d bytes, %v)", len(data), err)
	}
}
