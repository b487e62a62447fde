package lockfile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Environment of a helper process started by TestConcurrentProcesses.
const (
	envHelper = "FLEDGE_LOCKFILE_HELPER" // "writer" or "reader"
	envDir    = "FLEDGE_LOCKFILE_DIR"
	envWorker = "FLEDGE_LOCKFILE_WORKER"
)

const (
	writers        = 8
	updatesEach    = 25
	readerStopFile = "stop"
)

// TestHelperProcess is not a test: it is the body of the processes that
// TestConcurrentProcesses starts from this same test binary.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(envHelper)
	if role == "" {
		return
	}
	dir := os.Getenv(envDir)
	s := NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, ".plugins.toml.lock"))
	switch role {
	case "writer":
		w, _ := strconv.Atoi(os.Getenv(envWorker))
		for j := 0; j < updatesEach; j++ {
			name := fmt.Sprintf("w%d-p%02d", w, j)
			err := s.Update(func(f *File) error {
				// Everything this writer added before must still be there:
				// a lost update would show here first.
				for k := 0; k < j; k++ {
					if _, ok := f.Get(fmt.Sprintf("w%d-p%02d", w, k)); !ok {
						return fmt.Errorf("own entry w%d-p%02d lost before update %d", w, k, j)
					}
				}
				f.Put(Plugin{Name: name, Source: "o/" + name, Version: "1.0.0", Installed: "2026-01-01", Commands: []string{name}})
				return nil
			})
			if err != nil {
				fmt.Fprintf(os.Stderr, "writer %d update %d: %v\n", w, j, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	case "reader":
		loads, seen := 0, 0
		for {
			f, err := s.Load()
			if err != nil {
				fmt.Fprintf(os.Stderr, "reader: load %d: %v\n", loads, err)
				os.Exit(1)
			}
			// Entries are only ever added, so a reader never sees fewer.
			if len(f.Plugins) < seen {
				fmt.Fprintf(os.Stderr, "reader: saw %d entries after %d\n", len(f.Plugins), seen)
				os.Exit(1)
			}
			seen = len(f.Plugins)
			loads++
			if _, err := os.Stat(filepath.Join(dir, readerStopFile)); err == nil {
				fmt.Printf("%d\n", loads)
				os.Exit(0)
			}
		}
	}
	os.Exit(2)
}

func helper(ctx context.Context, dir, role string, worker int) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envHelper+"="+role, envDir+"="+dir, envWorker+"="+strconv.Itoa(worker))
	return cmd
}

// Eight processes each add 25 entries through Update while another process
// reads in a loop: no update is lost and no read sees a torn file.
func TestConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	reader := helper(ctx, dir, "reader", 0)
	var readerOut, readerErr bytes.Buffer
	reader.Stdout, reader.Stderr = &readerOut, &readerErr
	if err := reader.Start(); err != nil {
		t.Fatal(err)
	}

	cmds := make([]*exec.Cmd, writers)
	outs := make([]bytes.Buffer, writers)
	for w := range cmds {
		cmds[w] = helper(ctx, dir, "writer", w)
		cmds[w].Stdout, cmds[w].Stderr = &outs[w], &outs[w]
		if err := cmds[w].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for w, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("writer %d: %v\n%s", w, err, outs[w].String())
		}
	}
	if err := os.WriteFile(filepath.Join(dir, readerStopFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := reader.Wait(); err != nil {
		t.Errorf("reader: %v\n%s", err, readerErr.String())
	}
	t.Logf("reader completed %s loads during the writes", readerOut.String())

	s := NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, ".plugins.toml.lock"))
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Plugins) != writers*updatesEach {
		t.Errorf("got %d entries, want %d", len(f.Plugins), writers*updatesEach)
	}
	for w := 0; w < writers; w++ {
		for j := 0; j < updatesEach; j++ {
			name := fmt.Sprintf("w%d-p%02d", w, j)
			p, ok := f.Get(name)
			if !ok {
				t.Errorf("%s lost", name)
				continue
			}
			if p.Source != "o/"+name || len(p.Commands) != 1 || p.Commands[0] != name {
				t.Errorf("%s garbled: %+v", name, p)
			}
		}
	}
	// Nothing but the file and its lock remains: no temp files leaked.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		switch e.Name() {
		case "plugins.toml", ".plugins.toml.lock", readerStopFile:
		default:
			t.Errorf("stray file %s", e.Name())
		}
	}
}
