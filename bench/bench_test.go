//go:build bench

package bench

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/derived/derivedtest"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/lockfile/lockfiletest"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/protocol"
)

// Binaries built once by TestMain.
var (
	fledgeBin string // the fledge command, as releases build it
	// fledgeSingle is fledge built without the fledge_split tag, as `go
	// install ./cmd/fledge` builds it: one binary with every command.
	fledgeSingle string
	// fledgeCore is the split build's command line, beside fledgeBin.
	fledgeCore string
	// envRoot holds the benchmarks' homes and projects (see TestMain).
	envRoot  string
	trivial  string // a Go program that prints one line
	goPlugin string // the runner's Go test plugin (flood, exit, ...)
	tmpRoot  string
)

const trivialSrc = `package main

import "os"

func main() { os.Stdout.WriteString("trivial 1.0\n") }
`

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		return m.Run() // no benchmarks asked for: build nothing (go test ./...)
	}
	dir, err := os.MkdirTemp("", "fledge-bench")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// Each benchmark's home and project live outside the system temp
	// directory, as a user's do: a FLEDGE_HOME or HOME inside /tmp makes a
	// confined run's grant of /tmp a rule for each of its entries (Landlock
	// only grants), which measures how full /tmp is, not fledge. Their
	// names are short, so that a FLEDGE_HOME's TMPDIR stand-ins
	// (home.Paths.PluginShortTempDir) fit a socket below them, as a
	// user's ~/.config/fledge does.
	if cache, err := os.UserCacheDir(); err == nil {
		if envRoot, err = os.MkdirTemp(cache, "fb-"); err == nil {
			defer os.RemoveAll(envRoot)
		}
	}
	tmpRoot, _ = filepath.EvalSymlinks(dir)
	fledgeBin = filepath.Join(tmpRoot, "fledge")
	fledgeSingle = filepath.Join(tmpRoot, "single", "fledge")
	fledgeCore = filepath.Join(tmpRoot, "fledge-core")
	fledgeNoMCP = filepath.Join(tmpRoot, "fledge-nomcp")
	trivial = filepath.Join(tmpRoot, "trivial")
	goPlugin = filepath.Join(tmpRoot, "goplugin")
	if err := os.WriteFile(filepath.Join(tmpRoot, "trivial.go"), []byte(trivialSrc), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, b := range append([][]string{
		// fledge is built as releases are (.goreleaser.yaml): static,
		// which saves the dynamic loader's work on every start, and split
		// (fastrun in fledge, the command line in fledge-core beside it).
		append(releaseFlags, "-tags", "fledge_split", "-o", fledgeBin, "../cmd/fledge"),
		append(releaseFlags, "-o", fledgeCore, "../cmd/fledge-core"),
		// The one binary `go install ./cmd/fledge` makes.
		append(releaseFlags, "-o", fledgeSingle, "../cmd/fledge"),
		append(releaseFlags, "-tags", "fledge_nomcp", "-o", fledgeNoMCP, "../cmd/fledge"),
		{"-o", goPlugin, "../runner/testdata/goplugin"},
		{"-o", trivial, filepath.Join(tmpRoot, "trivial.go")},
	}, append(wasmBuilds(), baseBuilds()...)...) {
		var env []string
		for len(b) > 0 && strings.Contains(b[0], "=") && !strings.HasPrefix(b[0], "-") {
			env, b = append(env, b[0]), b[1:] // GOOS=... for this build
		}
		cmd := exec.Command("go", append([]string{"build"}, b...)...)
		cmd.Stderr = os.Stderr
		cmd.Env = append(os.Environ(), env...)
		if slices.Contains(b, releaseFlags[0]) {
			cmd.Env = append(cmd.Env, "CGO_ENABLED=0")
		}
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "go build", b, err)
			return 1
		}
	}
	return m.Run()
}

// releaseFlags are the go build flags of .goreleaser.yaml (with
// CGO_ENABLED=0), less the version stamp.
var releaseFlags = []string{"-trimpath", "-ldflags=-s -w"}

// env is one FLEDGE_HOME with a HOME beside it.
type env struct {
	root  string
	paths home.Paths
	vars  []string
}

func newEnv(b *testing.B) *env {
	b.Helper()
	root := b.TempDir()
	if envRoot != "" {
		dir, err := os.MkdirTemp(envRoot, "e-")
		if err != nil {
			b.Fatal(err)
		}
		root = dir
	}
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		b.Fatal(err)
	}
	paths, err := home.New(filepath.Join(root, "fledge"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "home"), 0o755); err != nil {
		b.Fatal(err)
	}
	return &env{root: root, paths: paths, vars: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(root, "home"),
		"FLEDGE_HOME=" + paths.Root(),
		"LANG=C", "NO_COLOR=1",
		"GIT_CONFIG_NOSYSTEM=1",
	}}
}

// cmd returns fledge (or another program) with the env's environment,
// stdout discarded.
func (e *env) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = e.vars
	c.Dir = e.root
	return c
}

// run runs a command and fails the benchmark on a non-zero exit.
func run(b *testing.B, c *exec.Cmd) *os.ProcessState {
	b.Helper()
	var stderr strings.Builder
	c.Stdout = io.Discard
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		b.Fatalf("%s: %v\n%s", strings.Join(c.Args, " "), err, stderr.String())
	}
	return c.ProcessState
}

// ---- start-up ----

// BenchmarkStartupTrivial: the floor, a Go program that prints a line.
func BenchmarkStartupTrivial(b *testing.B) {
	e := newEnv(b)
	for i := 0; i < b.N; i++ {
		run(b, e.cmd(trivial))
	}
}

// BenchmarkStartupVersion: fledge --version.
func BenchmarkStartupVersion(b *testing.B) {
	e := newEnv(b)
	for i := 0; i < b.N; i++ {
		run(b, e.cmd(fledgeBin, "--version"))
	}
}

// BenchmarkStartupSingle: --version and `fledge gp exit 0` with fledge as
// one binary (fledgeSingle), against the split build's, alternately
// (ms-single-*, ms-split-*: median milliseconds); and plugins info, a
// command the split build hands to fledge-core. Each side has a home of
// its own, as each fledge keeps derived files of its own.
func BenchmarkStartupSingle(b *testing.B) {
	envs := map[string]*env{"single": goEnv(b), "split": goEnv(b)}
	figures := []struct {
		name string
		args []string
	}{{"version", []string{"--version"}}, {"command", []string{"gp", "exit", "0"}}, {"info", []string{"plugins", "info", "gp"}}}
	times := map[string][]float64{}
	for i := 0; i < b.N; i++ {
		for _, f := range figures {
			for _, side := range []struct{ name, bin string }{{"single", fledgeSingle}, {"split", fledgeBin}} {
				start := time.Now()
				run(b, envs[side.name].cmd(side.bin, f.args...))
				times["ms-"+side.name+"-"+f.name] = append(times["ms-"+side.name+"-"+f.name], float64(time.Since(start).Microseconds())/1000)
			}
		}
	}
	for unit, v := range times {
		b.ReportMetric(median(v), unit)
	}
}

// BenchmarkListJSON: fledge plugins list --json with n installed plugins
// (plugins.toml entries and minimal plugin trees, written directly).
func BenchmarkListJSON(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run("plugins="+strconv.Itoa(n), func(b *testing.B) {
			e := newEnv(b)
			fakePlugins(b, e, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run(b, e.cmd(fledgeBin, "plugins", "list", "--json"))
			}
		})
	}
}

func fakePlugins(b *testing.B, e *env, n int) {
	b.Helper()
	err := lockfile.NewStore(e.paths.PluginsFile(), e.paths.PluginsLock()).Update(func(f *lockfile.File) error {
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("fledge-plugin-p%04d", i)
			dir := e.paths.PluginDir(name)
			if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
				return err
			}
			m := fmt.Sprintf("[plugin]\nname = %q\nversion = \"1.2.3\"\ndescription = \"plugin %d\"\n\n[[commands]]\nname = \"p%04d\"\nbinary = \"bin/run\"\n", name, i, i)
			if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(m), 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "bin", "run"), []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
				return err
			}
			f.Put(lockfiletest.Entry(i))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	derivedtest.WaitSettled(b, e.paths.PluginsFile())
}

// ---- install ----

// pluginRepo makes a git repository holding a small shell plugin with some
// history (commits commits of files files), as a plugin repo typically is.
func pluginRepo(b *testing.B, dir, name string, commits int) string {
	b.Helper()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		b.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		b.Fatal(err)
	}
	write := func(path, data string, mode os.FileMode) {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			b.Fatal(err)
		}
		if _, err := wt.Add(path); err != nil {
			b.Fatal(err)
		}
	}
	write(manifest.FileName, fmt.Sprintf("[plugin]\nname = %q\nversion = \"0.1.0\"\ndescription = \"bench plugin\"\n\n[[commands]]\nname = %q\nbinary = \"bin/run\"\n", name, strings.TrimPrefix(name, "fledge-plugin-")), 0o644)
	write("bin/run", "#!/bin/sh\necho hello\n", 0o755)
	sig := &object.Signature{Name: "bench", Email: "bench@example.com", When: time.Unix(1700000000, 0)}
	for c := 0; c < commits; c++ {
		for f := 0; f < 10; f++ {
			write(fmt.Sprintf("docs/page%02d.md", f), strings.Repeat(fmt.Sprintf("commit %d, page %d: some documentation text.\n", c, f), 40), 0o644)
		}
		write("README.md", fmt.Sprintf("# %s\n\nrevision %d\n", name, c), 0o644)
		if _, err := wt.Commit(fmt.Sprintf("revision %d", c), &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
			b.Fatal(err)
		}
		sig.When = sig.When.Add(time.Minute)
	}
	return "file://" + dir
}

const repoCommits = 20

// BenchmarkInstallGitClone: the baseline, git clone --depth 1 of the repo.
func BenchmarkInstallGitClone(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	e := newEnv(b)
	url := pluginRepo(b, filepath.Join(e.root, "repo"), "fledge-plugin-bench", repoCommits)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst := filepath.Join(e.root, "clones", strconv.Itoa(i))
		run(b, e.cmd("git", "clone", "-q", "--depth", "1", url, dst))
	}
}

// BenchmarkInstallFledge: fledge plugins install of the same repo into an
// empty FLEDGE_HOME.
func BenchmarkInstallFledge(b *testing.B) {
	e := newEnv(b)
	url := pluginRepo(b, filepath.Join(e.root, "repo"), "fledge-plugin-bench", repoCommits)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := filepath.Join(e.root, "homes", strconv.Itoa(i))
		c := e.cmd(fledgeBin, "plugins", "install", url, "--yes")
		c.Env = append(c.Env, "FLEDGE_HOME="+h)
		b.StartTimer()
		run(b, c)
	}
}

// BenchmarkInstallReinstall: a warm reinstall (--force) over the same
// plugin.
func BenchmarkInstallReinstall(b *testing.B) {
	e := newEnv(b)
	url := pluginRepo(b, filepath.Join(e.root, "repo"), "fledge-plugin-bench", repoCommits)
	run(b, e.cmd(fledgeBin, "plugins", "install", url, "--yes"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, e.cmd(fledgeBin, "plugins", "install", url, "--yes", "--force"))
	}
}

// ---- install of larger trees ----

// treeSizes are the file counts of the larger install rows: a plugin with
// a few hundred files and one with a few thousand.
var treeSizes = []int{300, 3000}

var (
	treeMu    sync.Mutex
	treeRepos = map[int]string{}
)

// treeRepo is a plugin repository of files files (a shell plugin, an
// executable, a symlink, nested directories of 1-4 KiB text files) in
// three commits, its objects loose as a repository made by committing
// locally has them; made once per size and shared, so fledge and git clone
// read the same repository.
func treeRepo(b *testing.B, files int) string {
	b.Helper()
	treeMu.Lock()
	defer treeMu.Unlock()
	if url, ok := treeRepos[files]; ok {
		return url
	}
	dir := filepath.Join(tmpRoot, "trees", strconv.Itoa(files))
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		b.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		b.Fatal(err)
	}
	write := func(path, data string, mode os.FileMode) {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			b.Fatal(err)
		}
	}
	write(manifest.FileName, "[plugin]\nname = \"fledge-plugin-tree\"\nversion = \"0.1.0\"\ndescription = \"bench plugin\"\n\n[[commands]]\nname = \"tree\"\nbinary = \"bin/run\"\n", 0o644)
	write("bin/run", "#!/bin/sh\necho hello\n", 0o755)
	if err := os.Symlink("bin/run", filepath.Join(dir, "run")); err != nil {
		b.Fatal(err)
	}
	sig := &object.Signature{Name: "bench", Email: "bench@example.com", When: time.Unix(1700000000, 0)}
	for c := 0; c < 3; c++ {
		for f := 0; f < files-3; f++ {
			if c > 0 && f%10 != c {
				continue // later commits touch a tenth of the files
			}
			line := fmt.Sprintf("revision %d, file %d: some source or documentation text.\n", c, f)
			write(fmt.Sprintf("src/d%02d/e%d/f%04d.txt", f%40, f%3, f), strings.Repeat(line, 20+f%60), 0o644)
		}
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			b.Fatal(err)
		}
		if _, err := wt.Commit(fmt.Sprintf("revision %d", c), &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
			b.Fatal(err)
		}
		sig.When = sig.When.Add(time.Minute)
	}
	url := "file://" + dir
	treeRepos[files] = url
	return url
}

// BenchmarkInstallTree: fledge plugins install of a repository of n files
// into an empty FLEDGE_HOME, against git clone --depth 1 of it. The two
// run alternately, so a machine whose load drifts slows both alike; each
// one's median is reported (ms-fledge, ms-git).
func BenchmarkInstallTree(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	for _, n := range treeSizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			e := newEnv(b)
			url := treeRepo(b, n)
			var fledge, clone []float64
			for i := 0; i < b.N; i++ {
				c := e.cmd(fledgeBin, "plugins", "install", url, "--yes")
				c.Env = append(c.Env, "FLEDGE_HOME="+filepath.Join(e.root, "homes", strconv.Itoa(i)))
				start := time.Now()
				run(b, c)
				fledge = append(fledge, float64(time.Since(start))/1e6)
				start = time.Now()
				run(b, e.cmd("git", "clone", "-q", "--depth", "1", url, filepath.Join(e.root, "clones", strconv.Itoa(i))))
				clone = append(clone, float64(time.Since(start))/1e6)
			}
			b.ReportMetric(median(fledge), "ms-fledge")
			b.ReportMetric(median(clone), "ms-git")
		})
	}
}

// ---- the runner, through the fledge binary ----

// goEnv installs the Go test plugin (a local copy) as command "gp".
func goEnv(b *testing.B) *env {
	b.Helper()
	e := newEnv(b)
	src := filepath.Join(e.root, "gp")
	if err := os.MkdirAll(filepath.Join(src, "bin"), 0o755); err != nil {
		b.Fatal(err)
	}
	m := "[plugin]\nname = \"fledge-plugin-gp\"\nversion = \"0.1.0\"\nprotocol = \"fledge-v1\"\n\n[[commands]]\nname = \"gp\"\nbinary = \"bin/goplugin\"\n"
	if err := os.WriteFile(filepath.Join(src, manifest.FileName), []byte(m), 0o644); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(goPlugin)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "bin", "goplugin"), data, 0o755); err != nil {
		b.Fatal(err)
	}
	run(b, e.cmd(fledgeBin, "plugins", "install", "--copy", "--yes", src))
	return e
}

// BenchmarkCommandFledge: `fledge gp exit 0`, the whole path from the
// shell: start-up, resolve, spawn, init, one output, exit.
// With plugins=100, 99 other plugins are recorded too, so plugins.toml is
// about 120 KB: the lookup must not decode all of it on every run.
func BenchmarkCommandFledge(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run("plugins="+strconv.Itoa(n), func(b *testing.B) {
			e := goEnv(b)
			err := lockfile.NewStore(e.paths.PluginsFile(), e.paths.PluginsLock()).Update(func(f *lockfile.File) error {
				for i := 1; i < n; i++ {
					f.Put(lockfiletest.Entry(i))
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run(b, e.cmd(fledgeBin, "gp", "exit", "0"))
			}
		})
	}
}

// ---- fledge <command> inside a git project ----

const (
	projectDirs = 50 // the tracked files are spread over this many directories
	projectURL  = "https://example.com/corvidlabs/project.git"
)

var (
	projectMu sync.Mutex
	projects  = map[int]string{} // file count -> project root
)

// gitProject returns a clean git project with files small tracked files,
// made once per process for each size (the benchmarks' envs come and go;
// the project lives in tmpRoot as long as the process).
func gitProject(b *testing.B, files int) string {
	b.Helper()
	projectMu.Lock()
	defer projectMu.Unlock()
	if dir, ok := projects[files]; ok {
		return dir
	}
	dir, err := makeGitProject(filepath.Join(tmpRoot, "project-"+strconv.Itoa(files)), files)
	if err != nil {
		b.Fatal(err)
	}
	projects[files] = dir
	return dir
}

// makeGitProject builds, with the git CLI, a repository on branch main
// holding files small files over projectDirs directories and a .gitignore,
// committed, with an https remote origin, plus a few ignored files (as a
// build leaves): `git status --porcelain` prints nothing there.
func makeGitProject(dir string, files int) (string, error) {
	h := filepath.Join(tmpRoot, "project-home")
	if err := os.MkdirAll(h, 0o755); err != nil {
		return "", err
	}
	vars := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h, "LANG=C", "GIT_CONFIG_NOSYSTEM=1"}
	git := func(args ...string) (string, error) {
		c := exec.Command("git", args...)
		c.Dir, c.Env = dir, vars
		out, err := c.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := git("init", "-q", "-b", "main"); err != nil {
		return "", err
	}
	write := func(path, data string) error {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(data), 0o644)
	}
	if err := write(".gitignore", "/build/\n*.log\n"); err != nil {
		return "", err
	}
	for i := 0; i < files; i++ {
		d := i % projectDirs
		if err := write(fmt.Sprintf("pkg%02d/f%04d.txt", d, i), fmt.Sprintf("file %d in pkg%02d\nsome small content\n", i, d)); err != nil {
			return "", err
		}
	}
	for _, p := range []string{"build/out.bin", "build/obj/a.o", "debug.log"} {
		if err := write(p, "ignored\n"); err != nil {
			return "", err
		}
	}
	// Date the files an hour back, as a project's files are older than its
	// index: with the index written in the same clock tick as the files,
	// every entry would be "racily clean" and git would re-read each file
	// on every status.
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		return "", err
	}
	for _, args := range [][]string{
		{"add", "-A"},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "init"},
		{"remote", "add", "origin", projectURL},
	} {
		if _, err := git(args...); err != nil {
			return "", err
		}
	}
	if out, err := git("status", "--porcelain"); err != nil || out != "" {
		return "", fmt.Errorf("project not clean after commit: %v\n%s", err, out)
	}
	if out, err := git("ls-files"); err != nil || strings.Count(out, "\n") != files+1 {
		return "", fmt.Errorf("project tracks %d files, want %d: %v", strings.Count(out, "\n"), files+1, err)
	}
	return dir, nil
}

// checkInitGit runs `fledge gp echo` in dir and fails unless the init
// message's project.git is the project's: branch main, clean, remote
// origin. A benchmark of a wrong answer would be no benchmark.
func checkInitGit(b *testing.B, e *env, dir string) {
	b.Helper()
	c := e.cmd(fledgeBin, "gp", "echo")
	c.Dir = dir
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		b.Fatalf("fledge gp echo: %v\n%s", err, stderr.String())
	}
	var got struct {
		Init protocol.Init `json:"init"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout.String())), &got); err != nil {
		b.Fatalf("fledge gp echo: %v\n%s", err, stdout.String())
	}
	want := protocol.Git{Branch: "main", Remote: "origin", RemoteURL: projectURL, Root: dir}
	if p := got.Init.Project; p == nil || p.Root != dir || p.Git == nil || *p.Git != want {
		b.Fatalf("init project in %s: %s\nwant root %s, git %+v", dir, stdout.String(), dir, want)
	}
}

// BenchmarkCommandFledgeInRepo: `fledge gp exit 0` as
// BenchmarkCommandFledge/plugins=1 runs it, but from the root of a clean
// git project of files files, so the run also computes the init message's
// project.git (branch, dirty, remote).
func BenchmarkCommandFledgeInRepo(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run("files="+strconv.Itoa(n), func(b *testing.B) {
			dir := gitProject(b, n)
			e := goEnv(b)
			checkInitGit(b, e, dir)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c := e.cmd(fledgeBin, "gp", "exit", "0")
				c.Dir = dir
				run(b, c)
			}
		})
	}
}

// BenchmarkGitStatusPorcelain: `git status --porcelain` in the same
// project, the cost the Rust fledge pays for the same answer (it runs git
// rev-parse, git status --porcelain and git remote; status dominates).
func BenchmarkGitStatusPorcelain(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run("files="+strconv.Itoa(n), func(b *testing.B) {
			dir := gitProject(b, n)
			e := newEnv(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c := e.cmd("git", "status", "--porcelain")
				c.Dir = dir
				run(b, c)
			}
		})
	}
}

// BenchmarkCommandDirect: exec'ing the same plugin binary directly with
// an init line.
func BenchmarkCommandDirect(b *testing.B) {
	e := newEnv(b)
	init := `{"type":"init","protocol":"fledge-v1","command":"gp","args":["exit","0"]}` + "\n"
	for i := 0; i < b.N; i++ {
		c := e.cmd(goPlugin, "exit", "0")
		c.Stdin = strings.NewReader(init)
		run(b, c)
	}
}

// peakRSS runs c under /usr/bin/time and returns the peak resident set, in
// KiB, of the process and the children it waited for. (The rusage Go's
// os/exec reports is no good here: a vfork'd child inherits the go test
// process's high-water mark.)
func peakRSS(b *testing.B, c *exec.Cmd) float64 {
	b.Helper()
	out := filepath.Join(b.TempDir(), "rss")
	c.Args = append([]string{"/usr/bin/time", "-f", "%M", "-o", out}, c.Args...)
	c.Path = "/usr/bin/time"
	run(b, c)
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	kib, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 64)
	if err != nil {
		b.Fatalf("/usr/bin/time: %q", data)
	}
	return kib
}

// BenchmarkStreamFledge: `fledge gp flood n 64`, reporting the peak RSS
// of fledge and its plugin (the larger of the two).
func BenchmarkStreamFledge(b *testing.B) {
	for _, n := range []int{100000, 1000000} {
		b.Run("msgs="+strconv.Itoa(n), func(b *testing.B) {
			if _, err := os.Stat("/usr/bin/time"); err != nil {
				b.Skip("needs /usr/bin/time")
			}
			e := goEnv(b)
			b.ResetTimer()
			peak := 0.0
			for i := 0; i < b.N; i++ {
				peak = max(peak, peakRSS(b, e.cmd(fledgeBin, "gp", "flood", strconv.Itoa(n), "64")))
			}
			b.ReportMetric(peak, "peak-KiB")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkStreamDirect: the plugin writing the same bytes straight to a
// pipe, no fledge: its own peak RSS is the floor.
func BenchmarkStreamDirect(b *testing.B) {
	for _, n := range []int{100000, 1000000} {
		b.Run("msgs="+strconv.Itoa(n), func(b *testing.B) {
			if _, err := os.Stat("/usr/bin/time"); err != nil {
				b.Skip("needs /usr/bin/time")
			}
			e := newEnv(b)
			peak := 0.0
			for i := 0; i < b.N; i++ {
				peak = max(peak, peakRSS(b, e.cmd(goPlugin, "rawflood", strconv.Itoa(n), "64")))
			}
			b.ReportMetric(peak, "peak-KiB")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// ---- update ----

const (
	updatePlugins = 50
	// remoteRTT is the latency the loopback git server adds to every
	// request, standing in for the network between fledge and a forge.
	remoteRTT = 25 * time.Millisecond
)

// updateSet is 50 plugins installed from git, made once per process and
// shared by the update benchmarks (installing them takes seconds).
type updateSet struct {
	local, remote *env
}

var (
	updateOnce sync.Once
	updateSt   *updateSet
	updateErr  error
)

func updateEnvs(b *testing.B) *updateSet {
	b.Helper()
	updateOnce.Do(func() { updateSt, updateErr = makeUpdateSet(b) })
	if updateErr != nil {
		b.Fatal(updateErr)
	}
	return updateSt
}

// makeUpdateSet builds 50 repositories and installs them twice: from
// file:// URLs (checks are local and CPU-bound) and from a loopback smart
// HTTP server that answers each ref advertisement after remoteRTT (checks
// wait on the "network", as against a real forge).
func makeUpdateSet(b *testing.B) (*updateSet, error) {
	root := filepath.Join(tmpRoot, "update")
	repos := filepath.Join(root, "repos")
	var names []string
	for i := 0; i < updatePlugins; i++ {
		name := fmt.Sprintf("fledge-plugin-u%02d", i)
		pluginRepo(b, filepath.Join(repos, name), name, 3)
		names = append(names, name)
	}
	srv, err := newRemote(repos, names)
	if err != nil {
		return nil, err
	}
	set := &updateSet{}
	for _, kind := range []string{"local", "remote"} {
		dir := filepath.Join(root, kind)
		paths, err := home.New(filepath.Join(dir, "fledge"))
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Join(dir, "home"), 0o755); err != nil {
			return nil, err
		}
		e := &env{root: dir, paths: paths, vars: []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(dir, "home"),
			"FLEDGE_HOME=" + paths.Root(), "LANG=C", "NO_COLOR=1", "GIT_CONFIG_NOSYSTEM=1",
		}}
		var urls []string
		for _, n := range names {
			if kind == "local" {
				urls = append(urls, "file://"+filepath.Join(repos, n))
			} else {
				urls = append(urls, srv+"/"+n)
			}
		}
		for i := 0; i < len(urls); i += 10 {
			c := e.cmd(fledgeBin, append([]string{"plugins", "install", "--yes"}, urls[i:min(i+10, len(urls))]...)...)
			if out, err := c.CombinedOutput(); err != nil {
				return nil, fmt.Errorf("install: %v\n%s", err, out)
			}
		}
		if kind == "local" {
			set.local = e
		} else {
			set.remote = e
		}
	}
	return set, nil
}

// newRemote serves the repositories under dir over git's smart HTTP
// protocol (git http-backend) on loopback. Ref advertisements, all an
// update check asks for, are answered from memory after remoteRTT, so
// the server's own CPU does not compete with fledge's on a small machine.
func newRemote(dir string, names []string) (string, error) {
	exe, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return "", err
	}
	backend := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(exe)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + dir, "GIT_HTTP_EXPORT_ALL=1"},
	}
	type cached struct {
		header http.Header
		body   []byte
	}
	var mu sync.Mutex
	adverts := map[string]cached{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(remoteRTT)
		if !strings.HasSuffix(r.URL.Path, "/info/refs") || r.Header.Get("Git-Protocol") != "" {
			backend.ServeHTTP(w, r)
			return
		}
		key := r.URL.String()
		mu.Lock()
		c, ok := adverts[key]
		mu.Unlock()
		if !ok {
			rec := httptest.NewRecorder()
			backend.ServeHTTP(rec, r)
			if rec.Code != http.StatusOK {
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
				return
			}
			c = cached{header: rec.Header().Clone(), body: rec.Body.Bytes()}
			mu.Lock()
			adverts[key] = c
			mu.Unlock()
		}
		for k, v := range c.header {
			w.Header()[k] = v
		}
		w.Write(c.body)
	}))
	// The server lives as long as the benchmark process.
	return srv.URL, nil
}

// BenchmarkUpdateAll: update of 50 up-to-date plugins, checked from
// file:// repositories (no network: CPU-bound).
func BenchmarkUpdateAll(b *testing.B) {
	e := updateEnvs(b).local
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, e.cmd(fledgeBin, "plugins", "update"))
	}
}

// BenchmarkUpdateOne: update of one up-to-date plugin from file://, the
// single check (the 50 are the same size, so any one is the slowest).
func BenchmarkUpdateOne(b *testing.B) {
	e := updateEnvs(b).local
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, e.cmd(fledgeBin, "plugins", "update", fmt.Sprintf("fledge-plugin-u%02d", i%updatePlugins)))
	}
}

// BenchmarkUpdateAllRemote: update of 50 up-to-date plugins over smart
// HTTP with remoteRTT of latency per request.
func BenchmarkUpdateAllRemote(b *testing.B) {
	e := updateEnvs(b).remote
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, e.cmd(fledgeBin, "plugins", "update"))
	}
}

// BenchmarkUpdateOneRemote: update of one plugin over the same server.
func BenchmarkUpdateOneRemote(b *testing.B) {
	e := updateEnvs(b).remote
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, e.cmd(fledgeBin, "plugins", "update", fmt.Sprintf("fledge-plugin-u%02d", i%updatePlugins)))
	}
}
