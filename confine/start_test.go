//go:build linux

package confine

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadState is what /proc says of one thread's confinement: Landlock
// leaves no trace there, so the seccomp filters and no_new_privs stand
// for the whole restriction (restrict sets all three together).
type threadState struct{ filters, noNewPrivs string }

func readThreadState(status string) (threadState, error) {
	f, err := os.Open(status)
	if err != nil {
		return threadState{}, err
	}
	defer f.Close()
	var s threadState
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Seccomp_filters:"); ok {
			s.filters = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(sc.Text(), "NoNewPrivs:"); ok {
			s.noNewPrivs = strings.TrimSpace(v)
		}
	}
	if s.filters == "" || s.noNewPrivs == "" {
		return s, fmt.Errorf("%s has no Seccomp_filters or NoNewPrivs line", status)
	}
	return s, sc.Err()
}

// confinedThreads lists the threads of this process whose state differs
// from start's (a thread gone meanwhile is not listed).
func confinedThreads(t *testing.T, start threadState) []string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range tasks {
		s, err := readThreadState(filepath.Join("/proc/self/task", task.Name(), "status"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if s != start {
			out = append(out, fmt.Sprintf("thread %s: %+v", task.Name(), s))
		}
	}
	return out
}

// confinedStartProfile denies dir (a stand-in for the home directory) and
// the network, and lets sh run.
func confinedStartProfile() Profile {
	return Profile{Scope: ScopeNone, ReadExec: SystemDirs, Read: []string{"/proc"}, Devices: []string{"/dev"}}
}

// Many confined starts at once in one process, as `fledge mcp` does: every
// child is confined, and fledge is not. Each start restricts a thread of
// its own and ends it, so once they are done every thread left is as
// unconfined as the test process was, the process still opens what the
// profile denies and makes sockets it refuses, from threads that were
// there and threads made after.
func TestStartConfinesTheChildAlone(t *testing.T) {
	if s := Detect(); !s.Files || !s.Network {
		t.Skipf("the kernel cannot confine files and network: %s", s.Reason)
	}
	start, err := readThreadState("/proc/thread-self/status")
	if err != nil {
		t.Fatal(err)
	}
	if start.filters != "0" {
		t.Logf("the test process starts with %s seccomp filters and NoNewPrivs %s; threads are compared with that", start.filters, start.noNewPrivs)
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	p := confinedStartProfile()

	// Collect garbage all along, so that restricted threads do GC work
	// (assists, stop-the-world) which signals the other threads.
	stopGC := make(chan struct{})
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		for {
			select {
			case <-stopGC:
				return
			default:
				runtime.GC()
			}
		}
	}()
	const starts = 64
	var wg sync.WaitGroup
	errs := make(chan error, starts)
	for i := range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(sh, "-c", `cat "$1" 2>/dev/null && echo read || echo denied`, "sh", secret)
			var out strings.Builder
			cmd.Stdout = &out // a pipe made on the confined thread
			if i%2 == 0 {
				cmd.Stdin = nil // /dev/null, opened before the thread is restricted
			}
			if err := Start(cmd, &p); err != nil {
				errs <- fmt.Errorf("start %d: %w", i, err)
				return
			}
			if err := cmd.Wait(); err != nil {
				errs <- fmt.Errorf("wait %d: %w", i, err)
				return
			}
			if got := strings.TrimSpace(out.String()); got != "denied" {
				errs <- fmt.Errorf("child %d read what its profile denies: %q", i, got)
			}
		}()
	}
	wg.Wait()
	close(stopGC)
	<-gcDone
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// A restricted thread ends when its goroutine has returned, which is
	// after Start returns: wait for the last to go.
	deadline := time.Now().Add(10 * time.Second)
	for left := confinedThreads(t, start); len(left) > 0; left = confinedThreads(t, start) {
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the starts, threads are still confined:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(5 * time.Millisecond)
	}

	// The process itself, from many goroutines: some on threads that
	// were there, and one locked to each of GOMAXPROCS*4 threads, which
	// the runtime makes now.
	var pwg sync.WaitGroup
	perr := make(chan error, 128)
	probe := func(lock bool) {
		defer pwg.Done()
		if lock {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			s, err := readThreadState("/proc/thread-self/status")
			if err != nil {
				perr <- err
				return
			}
			if s != start {
				perr <- fmt.Errorf("a thread made after the starts is confined: %+v", s)
			}
		}
		if _, err := os.ReadFile(secret); err != nil {
			perr <- fmt.Errorf("fledge lost what it may read: %w", err)
		}
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			perr <- fmt.Errorf("fledge lost the network: %w", err)
			return
		}
		_ = c.Close()
	}
	for i := range 4 * runtime.GOMAXPROCS(0) * 2 {
		pwg.Add(1)
		go probe(i%2 == 0)
	}
	pwg.Wait()
	close(perr)
	for err := range perr {
		t.Error(err)
	}
}

// A restricted thread may still signal the process's other threads: the
// Go runtime's thread preempts others (GC, stop-the-world) with tgkill.
// Landlock's signal scoping (ABI 6) refused that before its erratum 2;
// go-landlock does not scope signals on such a kernel.
func TestRestrictedThreadSignalsItsSiblings(t *testing.T) {
	if s := Detect(); !s.Files {
		t.Skipf("the kernel cannot confine: %s", s.Reason)
	}
	r, err := compile(confinedStartProfile())
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		tasks, err := os.ReadDir("/proc/self/task")
		if err == nil {
			err = r.restrict()
		}
		if err != nil {
			done <- err
			return
		}
		for _, task := range tasks {
			tid, _ := strconv.Atoi(task.Name())
			if err := unix.Tgkill(unix.Getpid(), tid, 0); err != nil && !errors.Is(err, unix.ESRCH) {
				done <- fmt.Errorf("tgkill thread %d: %w", tid, err)
				return
			}
		}
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A profile the kernel refuses is an error, and the command never runs,
// confined or not.
func TestStartRefusesWhatItCannotConfine(t *testing.T) {
	if s := Detect(); !s.Files {
		t.Skipf("the kernel cannot confine: %s", s.Reason)
	}
	// Landlock takes no rule on a pipe (an internal filesystem). It is
	// granted more than /proc is, so that its rule is not left out as
	// one /proc's holds already.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	p := confinedStartProfile()
	p.Write = append(p.Write, fmt.Sprintf("/proc/self/fd/%d", pr.Fd()))
	marker := filepath.Join(t.TempDir(), "ran")
	cmd := exec.Command("/bin/sh", "-c", `: >"$1"`, "sh", marker)
	err = Start(cmd, &p)
	if err == nil {
		_ = cmd.Wait()
		t.Fatal("a profile the kernel refuses started the command")
	}
	if !strings.Contains(err.Error(), "cannot confine /bin/sh") {
		t.Errorf("the error does not say what could not be confined: %v", err)
	}
	if cmd.Process != nil {
		t.Error("the command has a process")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
}

// A granted file gets file rights, a granted directory directory rights
// (moving files within it, the "refer" right, included), and nothing
// else is reachable.
func TestStartGrantsFilesAndDirectories(t *testing.T) {
	if s := Detect(); !s.Files {
		t.Skipf("the kernel cannot confine: %s", s.Reason)
	}
	root := t.TempDir()
	file, dir, secret := filepath.Join(root, "file"), filepath.Join(root, "dir"), filepath.Join(root, "secret")
	for _, f := range []string{file, secret} {
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := confinedStartProfile()
	p.Write = []string{file, dir, filepath.Join(root, "gone")}
	cmd := exec.Command("/bin/sh", "-c", `echo y >"$1" && echo z >"$2/a" && mkdir "$2/d" && mv "$2/a" "$2/d/b" && cat "$2/d/b" && ! cat "$3" 2>/dev/null && ! touch "$4/new" 2>/dev/null && echo ok`,
		"sh", file, dir, secret, root)
	out, err := startOutput(cmd, &p)
	if err != nil || strings.TrimSpace(out) != "z\nok" {
		t.Fatalf("confined sh: %q, %v", out, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "y\n" {
		t.Errorf("the granted file holds %q", b)
	}
}

// A path granted by several rows gets one rule with all their rights, and
// a path beneath one granted as much gets none; each keeps what it was
// granted: a directory written in one read and executed, a file read in
// a directory read, a directory read inside one written.
func TestStartOneRuleAPath(t *testing.T) {
	if s := Detect(); !s.Files {
		t.Skipf("the kernel cannot confine: %s", s.Reason)
	}
	root := t.TempDir()
	both, w, r := filepath.Join(root, "both"), filepath.Join(root, "w"), filepath.Join(root, "r")
	for _, d := range []string{both, filepath.Join(w, "x"), r} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(r, "f"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := confinedStartProfile()
	base, err := compile(p)
	if err != nil {
		t.Fatal(err)
	}
	base.close()
	p.ReadExec = append(slices.Clip(p.ReadExec), root, both, filepath.Join(w, "x"))
	p.Read = append(slices.Clip(p.Read), filepath.Join(r, "f"))
	p.Write = []string{w, both}
	c, err := compile(p)
	if err != nil {
		t.Fatal(err)
	}
	c.close()
	if got := c.rules - base.rules; got != 3 { // root, both, w
		t.Errorf("%d rules for root, both, w and what lies beneath them, want 3", got)
	}
	cmd := exec.Command("/bin/sh", "-c", `echo a >"$1/w/x/f" && echo b >"$1/both/f" && cat "$1/r/f" && ! touch "$1/new" 2>/dev/null && ! touch "$1/r/new" 2>/dev/null && echo ok`,
		"sh", root)
	out, err := startOutput(cmd, &p)
	if err != nil || strings.TrimSpace(out) != "x\nok" {
		t.Fatalf("confined sh: %q, %v", out, err)
	}
}

func startOutput(cmd *exec.Cmd, p *Profile) (string, error) {
	var out strings.Builder
	cmd.Stdout = &out
	if err := Start(cmd, p); err != nil {
		return "", err
	}
	err := cmd.Wait()
	return out.String(), err
}

// A grant holding a hidden tree is split into its entries: the kernel
// grants each file and directory beside the hidden tree, not the tree, and
// an entry replaced by a link after the profile was drawn does not lead
// where the link points.
func TestStartSplitGrant(t *testing.T) {
	if s := Detect(); !s.Files {
		t.Skipf("the kernel cannot confine: %s", s.Reason)
	}
	base := t.TempDir()
	project := filepath.Join(base, "project")
	fh := filepath.Join(project, "fh")
	outside := filepath.Join(fh, "outside") // hidden: granted only through a followed link
	for _, d := range []string{filepath.Join(project, "dir"), filepath.Join(project, "swap"), filepath.Join(fh, "plugins"), outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(project, "file"), filepath.Join(fh, "plugins.toml")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := Derive("", Grants{}, Places{Home: filepath.Join(base, "home"), FledgeHome: fh, Project: []string{project}})
	if slices.Contains(p.Write, project) || !slices.Contains(p.Write, filepath.Join(project, "file")) || !slices.Contains(p.Write, filepath.Join(project, "dir")) {
		t.Fatalf("the project holding FLEDGE_HOME is not split into its entries: %v", p.Write)
	}
	// Drawn; now the directory swap becomes a link to outside.
	if err := os.Remove(filepath.Join(project, "swap")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(project, "swap")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `echo y >"$1/file" && echo z >"$1/dir/a" && cat "$1/dir/a" && ! cat "$1/fh/plugins.toml" 2>/dev/null && ! touch "$1/swap/new" 2>/dev/null && ! touch "$1/new" 2>/dev/null && echo ok`,
		"sh", project)
	out, err := startOutput(cmd, &p)
	if err != nil || strings.TrimSpace(out) != "z\nok" {
		t.Fatalf("confined sh: %q, %v", out, err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "new")); err == nil {
		t.Error("a link put in place of a split entry led the plugin outside")
	}
}

// TestStartTempNotThroughALink: the run's TMPDIR is granted as the
// directory it is. A link in its place when the profile is drawn grants
// nothing, and nor does one put there after (a directory made for the run
// in the shared /tmp, which another program of the user's can rename).
func TestStartTempNotThroughALink(t *testing.T) {
	if s := Detect(); !s.Files {
		t.Skipf("the kernel cannot confine: %s", s.Reason)
	}
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	temp := filepath.Join(base, "tmp-run")
	for _, d := range []string{outside, temp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	at := Places{Home: filepath.Join(base, "home"), Temp: temp}
	p := Derive("none", Grants{Filesystem: "none"}, at)
	if !slices.Contains(p.Write, temp) {
		t.Fatalf("TMPDIR %s is not granted: %v", temp, p.Write)
	}
	// Drawn; now the directory is renamed and a link to outside put there.
	if err := os.Rename(temp, temp+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, temp); err != nil {
		t.Fatal(err)
	}
	script := `! touch "$1/new" 2>/dev/null && echo ok`
	out, err := startOutput(exec.Command("/bin/sh", "-c", script, "sh", temp), &p)
	if err != nil || strings.TrimSpace(out) != "ok" {
		t.Fatalf("confined sh, TMPDIR swapped for a link after drawing: %q, %v", out, err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "new")); err == nil {
		t.Error("a link put in place of TMPDIR after drawing led the plugin outside")
	}
	// A link there when the profile is drawn is not granted at all.
	p = Derive("none", Grants{Filesystem: "none"}, at)
	if slices.Contains(p.Write, outside) || slices.Contains(p.Write, temp) {
		t.Fatalf("TMPDIR that is a link to %s is granted: %v", outside, p.Write)
	}
	// And the directory itself is granted when it is one.
	if err := os.Remove(temp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(temp+".moved", temp); err != nil {
		t.Fatal(err)
	}
	p = Derive("none", Grants{Filesystem: "none"}, at)
	out, err = startOutput(exec.Command("/bin/sh", "-c", `touch "$1/new" && echo ok`, "sh", temp), &p)
	if err != nil || strings.TrimSpace(out) != "ok" {
		t.Fatalf("confined sh writing its TMPDIR: %q, %v", out, err)
	}
}
