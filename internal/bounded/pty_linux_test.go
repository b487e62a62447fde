package bounded

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A terminal nobody types into: reading it would wait forever. Every
// reader refuses it at once, named directly or through a link.
func TestReadersRefuseTerminal(t *testing.T) {
	t.Parallel()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty := fmt.Sprintf("/dev/pts/%d", n)
	root := t.TempDir()
	if err := os.Symlink(tty, filepath.Join(root, "totty")); err != nil {
		t.Fatal(err)
	}
	_, err = returns(t, "ReadFile "+tty, func() ([]byte, error) { return ReadFile(tty, 1024) })
	aDevice.check(t, "ReadFile "+tty, nil, err)
	_, err = returns(t, "ReadFile totty", func() ([]byte, error) { return ReadFile(filepath.Join(root, "totty"), 1024) })
	aDevice.check(t, "ReadFile totty", nil, err)
	_, err = returns(t, "ReadInRoot totty", func() ([]byte, error) { return ReadInRoot(root, "totty", 1024) })
	leadsOutside.check(t, "ReadInRoot totty", nil, err)
}
