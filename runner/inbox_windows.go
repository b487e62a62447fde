//go:build windows

package runner

// nbWriter is unused on Windows.
type nbWriter struct{}

func (q *inbox) initTryWrite() {}

// tryWrite leaves every write to the writer goroutine: Windows pipes do
// not do non-blocking writes.
func (q *inbox) tryWrite(b []byte) (int, error) { return 0, nil }
