//go:build unix

package cli_test

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// Many fledge processes at once: 8 installing 8 different plugins, 4
// removing and reinstalling others, 1 updating, and 2 listing in a loop.
// Nothing is lost, every listing parses, and every tree verifies.
func TestConcurrentProcesses(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	var fresh []string
	for i := 1; i <= 8; i++ {
		name := fmt.Sprintf("fledge-plugin-c%d", i)
		if i <= 4 {
			e.repo(name, hPlugin(name, "1.0.0", ""))
			fresh = append(fresh, "o/"+name)
		} else {
			e.local(fmt.Sprintf("c%d", i), hPlugin(name, "1.0.0", ""))
			fresh = append(fresh, fmt.Sprintf("./c%d", i))
		}
	}
	for i := 1; i <= 4; i++ {
		e.local(fmt.Sprintf("r%d", i), hPlugin(fmt.Sprintf("fledge-plugin-r%d", i), "1.0.0", ""))
		e.ok("plugins", "install", fmt.Sprintf("./r%d", i), "--copy", "--json")
	}
	e.repo("fledge-plugin-u", hPlugin("fledge-plugin-u", "1.0.0", ""))
	e.ok("plugins", "install", "o/fledge-plugin-u", "--json")
	urepo := openRepoT(t, e.gh+"/o/fledge-plugin-u")
	testutil.WriteTree(t, e.gh+"/o/fledge-plugin-u", hPlugin("fledge-plugin-u", "1.1.0", ""))
	newU, err := commitAll(urepo, "1.1.0")
	if err != nil {
		t.Fatal(err)
	}

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []string
		lists    atomic.Int64
		stop     = make(chan struct{})
	)
	fail := func(format string, a ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, a...))
		mu.Unlock()
	}
	// A goroutine must not call t.Fatal: run records what went wrong.
	run := func(args ...string) hRes {
		r := e.run(args...)
		if r.code != 0 {
			fail("%v", r)
		}
		return r
	}
	start := time.Now()
	for _, src := range fresh {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run("plugins", "install", src, "--copy", "--json")
		}()
	}
	for i := 1; i <= 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rounds := 3
			if i == 4 {
				rounds = 1 // r4 ends removed
			}
			for range rounds {
				run("plugins", "remove", fmt.Sprintf("r%d", i), "--json")
				if i != 4 {
					run("plugins", "install", fmt.Sprintf("./r%d", i), "--copy", "--json")
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		run("plugins", "update", "u", "--json")
	}()
	var listers sync.WaitGroup
	for range 2 {
		listers.Add(1)
		go func() {
			defer listers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := run("plugins", "list", "--json")
				v, err := decodeOneJSON(string(r.out))
				if _, ok := hGet(v, "plugins").([]any); err != nil || !ok {
					fail("list output does not parse as a list of plugins: %v\n%v", err, r)
				}
				lists.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	listers.Wait()
	took := time.Since(start)
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("8 installs, 4 remove/reinstall loops (10 removes, 9 reinstalls), 1 update and %d concurrent lists in %v", lists.Load(), took)
	if lists.Load() == 0 {
		t.Error("no list ran while the others did")
	}

	want := []string{"fledge-plugin-u"}
	for i := 1; i <= 8; i++ {
		want = append(want, fmt.Sprintf("fledge-plugin-c%d", i))
	}
	for i := 1; i <= 3; i++ {
		want = append(want, fmt.Sprintf("fledge-plugin-r%d", i))
	}
	sort.Strings(want)
	if got := e.names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("plugins.toml lists %v\nwant %v", got, want)
	}
	entries := e.entries()
	for _, n := range want {
		e.verified(n, entries[n].Commands...)
	}
	if entries["fledge-plugin-u"].Commit != newU.String() || entries["fledge-plugin-u"].Version != "1.1.0" {
		t.Errorf("update lost: u is %s at %s", entries["fledge-plugin-u"].Version, entries["fledge-plugin-u"].Commit)
	}
	e.absent("fledge-plugin-r4", "r4")
	e.noLeftovers()
}

// Two processes installing the same plugin at once: without --force one
// wins and the other is told it is installed; with --force both succeed.
// Either way the result verifies and nothing is left over.
func TestConcurrentInstallsOfOnePlugin(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.repo("fledge-plugin-same", hPlugin("fledge-plugin-same", "1.0.0", "\n[hooks]\npost_install = \"sleep 0.2\"\n"))
	both := func(args ...string) [2]hRes {
		var res [2]hRes
		var wg sync.WaitGroup
		for i := range res {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = e.run(args...)
			}()
		}
		wg.Wait()
		return res
	}
	for round := range 3 {
		res := both("plugins", "install", "o/fledge-plugin-same", "--grant", "hooks", "--json")
		wins := 0
		for _, r := range res {
			switch {
			case r.code == 0:
				wins++
			case hStr(hJSON(t, r), "error", "code") != "already_installed":
				t.Errorf("round %d: the loser failed with something else\n%v", round, r)
			}
		}
		if wins != 1 {
			t.Errorf("round %d: %d of 2 won, want exactly 1\n%v\n%v", round, wins, res[0], res[1])
		}
		e.verified("fledge-plugin-same", "same")
		e.noLeftovers()

		for _, r := range both("plugins", "install", "o/fledge-plugin-same", "--grant", "hooks", "--force", "--json") {
			if r.code != 0 {
				t.Errorf("round %d: --force install failed\n%v", round, r)
			}
		}
		e.verified("fledge-plugin-same", "same")
		e.noLeftovers()
		e.ok("plugins", "remove", "same")
	}
}
