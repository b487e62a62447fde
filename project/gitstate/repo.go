package gitstate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Options say how git is run.
type Options struct {
	// Env is the environment git runs with: the user's (os.Environ when
	// nil). GIT_DIR and the other variables git reads are honoured.
	Env []string
	// Home is the user's home directory. A repository whose work tree is
	// the home directory or one above it (a dotfiles repository) is not
	// the project's, and is not reported.
	Home string
	// Timeout bounds each git command (DefaultTimeout when zero).
	Timeout time.Duration
}

// Repo is the git repository whose work tree holds a project directory,
// as git itself finds it. Its methods may be called concurrently.
type Repo struct {
	// Root is the top level of the work tree with symlinks resolved (the
	// directory above the nearest .git when git could not say).
	Root string

	g         *gitRunner
	remotes   []remote    // in config order
	insteadOf [][2]string // url.<base>.insteadOf: prefix, base
	failure   error       // why git cannot answer for this repository

	mu    sync.Mutex
	first *State // the status the one-process path asked for at Open
}

type remote struct{ name, url string }

// maxInspect bounds what is read of git config and git ls-files output
// while a repository is inspected.
const maxInspect = 256 << 20

// maxSubmodules bounds the submodules inspected, and maxSubmoduleDepth
// how deep they nest.
const (
	maxSubmodules     = 256
	maxSubmoduleDepth = 8
)

// Open finds the repository whose work tree holds dir, as git does. It
// returns nil when there is none (or it is the user's home repository).
// A directory inside a repository that git cannot read, or when git is
// not installed, still gets a Repo: its answers fail closed.
func Open(ctx context.Context, dir string, opts Options) *Repo {
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	home := ""
	if opts.Home != "" {
		home = realOrAbs(opts.Home)
	}
	// What a repository looks like without git's help: the nearest
	// .git, or GIT_DIR. Without either git finds no work tree either, and
	// is not asked: most runs outside a repository (or under a dotfiles
	// repository in the home directory) start no process.
	dotRoot := findDotGit(dir)
	if hasVar(opts.Env, "GIT_DIR") {
		if dotRoot == "" {
			dotRoot = realOrAbs(dir)
		}
	} else if dotRoot == "" || (home != "" && within(dotRoot, home)) {
		return nil
	}
	failClosed := func(err error) *Repo {
		if home != "" && within(dotRoot, home) {
			return nil
		}
		return &Repo{Root: dotRoot, failure: err}
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		return failClosed(errors.New("git is not installed (not found on PATH)"))
	}
	if r, ok := openFast(ctx, bin, dir, dotRoot, opts); ok {
		return r
	}
	g := &gitRunner{bin: bin, dir: dir, env: gitEnv(opts.Env, false), timeout: opts.Timeout}
	// Where the work tree is, and what the repository's config would have
	// git execute, are asked at once; the second is wasted outside a
	// repository, which costs one process.
	var (
		top    []byte
		topErr error
		r      = &Repo{g: g}
		wg     sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		top, _, topErr = g.run(ctx, 64<<10, nil, nil, "rev-parse", "--is-inside-work-tree", "--show-toplevel")
	}()
	insErr := r.inspect(ctx)
	wg.Wait()
	if topErr != nil {
		var ge *Error
		if errors.As(topErr, &ge) && bytes.HasPrefix(top, []byte("false")) {
			return nil // a bare repository, or inside a .git directory: no work tree
		}
		return failClosed(topErr)
	}
	inside, rest, _ := strings.Cut(string(top), "\n")
	if inside != "true" {
		return nil
	}
	r.Root = realOrAbs(strings.TrimSpace(rest))
	if home != "" && within(r.Root, home) {
		return nil
	}
	r.failure = insErr
	return r
}

// inspect reads the repository's remotes and the filter drivers its own
// config (and each checked-out submodule's) defines, and disables those
// drivers for every later command: git status runs a file's clean filter
// when it cannot tell from the file's stat data that it is unchanged, so
// a repository's config could otherwise have fledge run any command.
// Drivers from the user's system and global config (git-lfs, say) stay:
// git runs them for every status the user asks for.
func (r *Repo) inspect(ctx context.Context) error {
	names := map[string]bool{}
	top := &inspection{names: names}
	if err := inspectOne(ctx, r.g, top, 0, new(int)); err != nil {
		return err
	}
	r.remotes, r.insteadOf = top.remotes, top.insteadOf
	var cfg []string
	for n := range names {
		if strings.ContainsAny(n, "=\n\x00") {
			return fmt.Errorf("the repository's config defines a filter driver named %q, which fledge cannot disable", n)
		}
		cfg = append(cfg, "filter."+n+".clean=", "filter."+n+".process=", "filter."+n+".required=false")
	}
	sort.Strings(cfg)
	r.g.config = cfg
	return nil
}

// inspection is what inspectOne finds: the filter drivers of a
// repository and its submodules, and the top repository's remotes.
type inspection struct {
	names     map[string]bool
	remotes   []remote
	insteadOf [][2]string
}

// inspectOne inspects the repository git finds from g.dir, then its
// checked-out submodules; count bounds the submodules seen in all.
func inspectOne(ctx context.Context, g *gitRunner, ins *inspection, depth int, count *int) error {
	var (
		cfgOut, lsOut []byte
		cfgErr, lsErr error
		wg            sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		lsOut, _, lsErr = g.run(ctx, maxInspect, nil, nil, "ls-files", "-z", "--stage")
	}()
	var cut bool
	cfgOut, cut, cfgErr = g.run(ctx, maxInspect, nil, []int{1}, "config", "-z", "--show-scope", "--get-regexp",
		`^(filter\..+\.(clean|process)|remote\..+\.url|url\..+\.insteadof)$`)
	wg.Wait()
	if cfgErr != nil {
		return cfgErr
	}
	if cut {
		return errors.New("git config printed more than fledge reads")
	}
	// Records are scope NUL key LF value NUL.
	recs := bytes.Split(cfgOut, []byte{0})
	for i := 0; i+1 < len(recs); i += 2 {
		scope := string(recs[i])
		key, value, _ := strings.Cut(string(recs[i+1]), "\n")
		section, rest, _ := strings.Cut(key, ".")
		dot := strings.LastIndexByte(rest, '.')
		if dot < 0 {
			continue
		}
		sub, name := rest[:dot], rest[dot+1:]
		switch section {
		case "filter":
			if scope != "system" && scope != "global" && scope != "command" {
				ins.names[sub] = true
			}
		case "remote":
			if depth == 0 && name == "url" && !hasRemote(ins.remotes, sub) {
				ins.remotes = append(ins.remotes, remote{sub, value})
			}
		case "url":
			if depth == 0 {
				ins.insteadOf = append(ins.insteadOf, [2]string{value, sub})
			}
		}
	}
	if lsErr != nil {
		return lsErr
	}
	for _, path := range gitlinks(lsOut) {
		dir := filepath.Join(g.dir, filepath.FromSlash(path))
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
			continue // not checked out: git does not look inside
		}
		if depth+1 > maxSubmoduleDepth {
			return fmt.Errorf("submodules nest deeper than %d", maxSubmoduleDepth)
		}
		if *count++; *count > maxSubmodules {
			return fmt.Errorf("more than %d submodules", maxSubmodules)
		}
		sub := &gitRunner{bin: g.bin, dir: dir, env: gitEnv(g.env, true), timeout: g.timeout}
		if err := inspectOne(ctx, sub, ins, depth+1, count); err != nil {
			return fmt.Errorf("submodule %s: %w", path, err)
		}
	}
	return nil
}

// rewrite applies url.<base>.insteadOf to a remote URL as git does: the
// longest matching prefix is replaced by its base.
func (r *Repo) rewrite(url string) string {
	best := -1
	for i, p := range r.insteadOf {
		if strings.HasPrefix(url, p[0]) && (best < 0 || len(p[0]) > len(r.insteadOf[best][0])) {
			best = i
		}
	}
	if best < 0 {
		return url
	}
	return r.insteadOf[best][1] + url[len(r.insteadOf[best][0]):]
}

func hasRemote(rs []remote, name string) bool {
	for _, r := range rs {
		if r.name == name {
			return true
		}
	}
	return false
}

// gitlinks lists the submodule paths in `git ls-files -z --stage` output
// ("mode SP hash SP stage TAB path NUL"), each once.
func gitlinks(out []byte) []string {
	var paths []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		if !bytes.HasPrefix(rec, []byte("160000 ")) {
			continue
		}
		if _, path, ok := bytes.Cut(rec, []byte{'\t'}); ok {
			if p := string(path); len(paths) == 0 || paths[len(paths)-1] != p {
				paths = append(paths, p)
			}
		}
	}
	return paths
}

// findDotGit returns the real path of the nearest directory at or above
// dir holding a .git, or "".
func findDotGit(dir string) string {
	d := realOrAbs(dir)
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == name && v != "" {
			return true
		}
	}
	return false
}

// within reports whether path is root or below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// realOrAbs is p with symlinks resolved, or at least absolute.
func realOrAbs(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
