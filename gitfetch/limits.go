package gitfetch

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Default limits on what one checkout fetches and writes
// (Options.MaxTreeBytes, Options.MaxTreeFiles).
const (
	DefaultMaxTreeBytes = 1 << 30
	DefaultMaxTreeFiles = 100_000
)

// ErrTooLarge is wrapped by TooLargeError.
var ErrTooLarge = errors.New("plugin too large")

// TooLargeError reports a checkout refused for its size: the revision's
// files together, their number, or what the server sent for them.
type TooLargeError struct {
	// What is over: "size", "files" or "download".
	What  string
	Limit int64
	// MaxTreeBytes is the size limit a download bound derives from.
	MaxTreeBytes int64
}

func (e *TooLargeError) Error() string {
	switch e.What {
	case "files":
		return fmt.Sprintf("the plugin has more than %d files, the most fledge installs", e.Limit)
	case "size":
		return fmt.Sprintf("the plugin's files come to more than %s, the most fledge installs", byteSize(e.Limit))
	}
	return fmt.Sprintf("the server sent more than %s for the plugin, more than a plugin within the install limit of %s needs", byteSize(e.Limit), byteSize(e.MaxTreeBytes))
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// byteSize shows n bytes in the largest binary unit it reaches: "1 GiB",
// "150.2 MiB", "900 bytes".
func byteSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

func (o Options) maxTreeBytes() int64 {
	if o.MaxTreeBytes > 0 {
		return o.MaxTreeBytes
	}
	return DefaultMaxTreeBytes
}

func (o Options) maxTreeFiles() int {
	if o.MaxTreeFiles > 0 {
		return o.MaxTreeFiles
	}
	return DefaultMaxTreeFiles
}

// maxDownload bounds what the server may send for one checkout: a pack
// holding the tree's files, compressed or stored (zlib adds at most 5
// bytes in 16 KiB), their tree entries and object headers (well under 512
// bytes a file), and the commit. A bare commit is fetched with its
// history, which must fit in the same bound.
func (o Options) maxDownload() int64 {
	return o.maxTreeBytes() + o.maxTreeBytes()/256 + int64(o.maxTreeFiles())*512 + 1<<20
}

// checkTree refuses a commit whose files come to more than the limits,
// reading only the sizes the pack records: nothing has been written yet.
func checkTree(repo *git.Repository, commit plumbing.Hash, o Options) error {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return err
	}
	tree, err := c.Tree()
	if err != nil {
		return err
	}
	sizer, _ := repo.Storer.(interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	})
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	maxBytes, maxFiles := o.maxTreeBytes(), o.maxTreeFiles()
	var total int64
	files := 0
	for {
		_, e, err := w.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !e.Mode.IsFile() {
			continue // a directory, or a submodule, which is never fetched
		}
		if files++; files > maxFiles {
			return &TooLargeError{What: "files", Limit: int64(maxFiles)}
		}
		var size int64
		if sizer != nil {
			size, err = sizer.EncodedObjectSize(e.Hash)
		} else {
			var obj plumbing.EncodedObject
			if obj, err = repo.Storer.EncodedObject(plumbing.BlobObject, e.Hash); err == nil {
				size = obj.Size()
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		if total += size; total > maxBytes {
			return &TooLargeError{What: "size", Limit: maxBytes}
		}
	}
}
