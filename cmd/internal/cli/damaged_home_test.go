//go:build unix

package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// ulimitBlock is the unit of the shell's ulimit -f, measured.
func ulimitBlock(t *testing.T) int64 {
	t.Helper()
	p := filepath.Join(t.TempDir(), "probe")
	exec.Command("sh", "-c", `ulimit -f 1; head -c 8192 /dev/zero > "$0"`, p).Run()
	fi, err := os.Stat(p)
	if err != nil || fi.Size() == 0 || fi.Size() == 8192 {
		t.Fatalf("cannot measure ulimit -f's unit (%v, %v)", fi, err)
	}
	return fi.Size()
}

// runFsize runs fledge with RLIMIT_FSIZE at limit bytes (rounded down to
// the shell's unit): writes past it fail with EFBIG.
func (e *hEnv) runFsize(limit int64, args ...string) hRes {
	e.t.Helper()
	blocks := limit / ulimitBlock(e.t)
	ctx, cancel := context.WithTimeout(context.Background(), hardTimeout)
	defer cancel()
	sh := append([]string{"-c", fmt.Sprintf(`ulimit -f %d && exec "$0" "$@"`, blocks), e.bin}, args...)
	cmd := exec.CommandContext(ctx, "sh", sh...)
	cmd.Env, cmd.Dir = e.environ(), e.work
	return e.exec(cmd, args)
}

// A disk that fills up mid-install or mid-remove: a clear error, plugins.toml
// unchanged byte for byte, no half-installed plugin, nothing left over.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	for i := range 8 {
		n := fmt.Sprintf("fledge-plugin-p%d", i)
		e.local(fmt.Sprintf("p%d", i), hPlugin(n, "1.0.0", "\ndescription = \""+strings.Repeat("padding ", 20)+"\"\n"))
		e.ok("plugins", "install", fmt.Sprintf("./p%d", i), "--copy", "--json")
	}
	size := int64(len(e.pluginsToml()))
	block := ulimitBlock(t)
	if size < 4*block {
		t.Fatalf("fixture: plugins.toml (%d bytes) too small for a %d-byte limit", size, block)
	}
	limit := size - block // the tree fits, plugins.toml does not
	check := func(what string, r hRes, before []byte, absent string) {
		t.Helper()
		if r.code != 1 || !bytes.Contains(bytes.ToLower(r.err), []byte("file too large")) {
			t.Errorf("%s: want exit 1 naming the failed write\n%v", what, r)
		}
		if !bytes.Equal(before, e.pluginsToml()) {
			t.Errorf("%s: plugins.toml changed", what)
		}
		if absent != "" {
			e.absent(absent, strings.TrimPrefix(absent, "fledge-plugin-"))
		}
		e.noLeftovers()
	}

	// A tree too large for the disk: copying fails.
	big := hPlugin("fledge-plugin-big", "1.0.0", "")
	big["data.bin"] = strings.Repeat("x", int(size*4))
	e.local("big", big)
	before := e.pluginsToml()
	check("large tree", e.runFsize(size*2, "plugins", "install", "./big", "--copy"), before, "fledge-plugin-big")

	// The tree fits, the new plugins.toml does not: the swap is undone.
	e.local("small", hPlugin("fledge-plugin-small", "1.0.0", ""))
	check("plugins.toml write on install", e.runFsize(limit, "plugins", "install", "./small", "--copy"), before, "fledge-plugin-small")

	// Remove: the record cannot be rewritten, so the plugin stays whole.
	// (plugins.toml shrinks by one entry; keep the limit below that.)
	check("plugins.toml write on remove", e.runFsize(size/2, "plugins", "remove", "p3"), before, "")
	e.verified("fledge-plugin-p3", "p3")

	// With room again, both succeed.
	e.ok("plugins", "install", "./small", "--copy", "--json")
	e.verified("fledge-plugin-small", "small")
	e.ok("plugins", "remove", "p3", "--json")
	e.absent("fledge-plugin-p3", "p3")
	e.noLeftovers()
}

// A FLEDGE_HOME the user cannot write (root's, mode 0755, fledge run as
// nobody): a clear error, nothing changed.
func TestReadOnlyHome(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run fledge as another user against a home it cannot write")
	}
	e := newHEnv(t)
	// nobody must reach the binary, the plugin source and the home.
	for d := e.work; d != "/" && d != filepath.Dir(os.TempDir()); d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			if err := os.Chmod(d, fi.Mode().Perm()|0o055); err != nil {
				t.Fatal(err)
			}
		}
	}
	bin := filepath.Join(e.work, "fledge")
	data, err := os.ReadFile(e.bin)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, bin, data, 0o755)
	e.local("a", hPlugin("fledge-plugin-a", "1.0.0", ""))
	e.local("b", hPlugin("fledge-plugin-b", "1.0.0", ""))
	e.ok("plugins", "install", "./a", "--copy", "--json")
	before := e.pluginsToml()
	snapshot := func() string {
		var b strings.Builder
		filepath.Walk(e.fh, func(p string, fi os.FileInfo, err error) error {
			if err == nil {
				fmt.Fprintf(&b, "%s %v %d %v\n", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
			}
			return nil
		})
		return b.String()
	}
	tree := snapshot()
	asNobody := func(args ...string) hRes {
		ctx, cancel := context.WithTimeout(context.Background(), hardTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env, cmd.Dir = e.environ(), e.work
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		return e.exec(cmd, args)
	}
	for _, args := range [][]string{
		{"plugins", "install", "./b", "--copy"},
		{"plugins", "remove", "a"},
	} {
		r := asNobody(append(args, "--json")...)
		msg := hStr(hJSON(t, r), "error", "message")
		if r.code != 1 || !strings.Contains(msg, "permission denied") {
			t.Errorf("%v as nobody: want exit 1 saying permission denied\n%v", args, r)
		}
	}
	// Reading only works on a home one cannot write: plugins.toml is 0644.
	// (update of a copied plugin only reads: it is skipped.)
	if r := asNobody("plugins", "list", "--json"); r.code != 0 {
		t.Errorf("list as nobody failed\n%v", r)
	}
	if r := asNobody("plugins", "update", "a", "--json"); r.code != 0 || hStr(hJSON(t, r), "results", 0, "status") != "skipped" {
		t.Errorf("update of a copy as nobody: want skipped, exit 0\n%v", r)
	}
	if !bytes.Equal(before, e.pluginsToml()) {
		t.Error("plugins.toml changed")
	}
	if now := snapshot(); now != tree {
		t.Errorf("FLEDGE_HOME changed:\nbefore:\n%s\nafter:\n%s", tree, now)
	}
	e.verified("fledge-plugin-a", "a")
}

// plugins.toml that is corrupt or from a newer fledge: every command that
// reads it fails with state_corrupt and never rewrites it.
func TestStateCorrupt(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"garbage":  "[[plugins]\nname = 'x\x00\xff",
		"future":   "format_version = 99\n\n[[plugins]]\nname = \"fledge-plugin-x\"\nsource = \"/tmp/x\"\nversion = \"1.0.0\"\ninstalled = \"2025-01-01T00:00:00Z\"\ncommands = []\n",
		"wrong":    "plugins = 3\n",
		"deep":     "x = " + strings.Repeat("[", 100000) + "\n",
		"deepinln": "x = " + strings.Repeat("{a=", 100000) + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newHEnv(t)
			e.local("p", hPlugin("fledge-plugin-p", "1.0.0", ""))
			if err := os.MkdirAll(e.fh, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(e.fh, "plugins.toml")
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"plugins", "install", "./p"},
				{"plugins", "remove", "x"},
				{"plugins", "update"},
				{"plugins", "list"},
				{"plugins", "verify"},
				{"plugins", "audit"},
			} {
				e.fail("state_corrupt", args...)
			}
			if data, _ := os.ReadFile(file); string(data) != text {
				t.Error("plugins.toml was rewritten")
			}
			if _, err := os.Lstat(filepath.Join(e.fh, "plugins", "fledge-plugin-p")); err == nil {
				t.Error("a plugin was installed over a corrupt plugins.toml")
			}
		})
	}
}

// plugins.toml is 0644 like everything else in FLEDGE_HOME (and as the Rust
// fledge writes it), not renameio's 0600: a home provisioned read-only for
// other users stays listable.
func TestPluginsTomlIsReadableLikeTheHome(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("a", hPlugin("fledge-plugin-a", "1.0.0", ""))
	e.ok("plugins", "install", "./a", "--copy", "--json")
	fi, err := os.Stat(filepath.Join(e.fh, "plugins.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o044 != 0o044 {
		t.Errorf("plugins.toml is %v, want readable like the rest of FLEDGE_HOME (0644)", fi.Mode().Perm())
	}
}
