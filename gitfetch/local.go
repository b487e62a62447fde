package gitfetch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/helper/chroot"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// OpenLocal opens the git repository holding dir (dir itself or the
// nearest ancestor with a .git), as git.PlainOpenWithOptions does with
// DetectDotGit and EnableDotGitCommonDir, for a repository fledge reads
// but does not control: a project's, a local plugin's. Every file go-git
// reads in it is opened through bounded.Open, so a named pipe or a device
// where .git/HEAD or a ref should be is refused at once instead of hanging
// fledge; and large objects are streamed, as in a clone.
func OpenLocal(dir string) (*git.Repository, error) {
	path, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var fs billy.Filesystem
	var fi os.FileInfo
	for {
		fs = localFS(path)
		if info, err := fs.Stat("/"); err == nil && !info.IsDir() {
			fs = localFS(filepath.Dir(path))
		}
		fi, err = fs.Stat(git.GitDirName)
		if err == nil {
			break
		}
		if !os.IsNotExist(err) {
			return nil, err
		}
		parent := filepath.Dir(path)
		if parent == path {
			return nil, git.ErrRepositoryNotExists
		}
		path = parent
	}
	wt, dot := fs, billy.Filesystem(nil)
	if fi.IsDir() {
		if dot, err = fs.Chroot(git.GitDirName); err != nil {
			return nil, err
		}
	} else if dot, err = gitDirFromFile(path, fs); err != nil {
		return nil, err
	}
	common, err := commonDir(dot)
	if err != nil {
		return nil, err
	}
	st := newStorage(dotgit.NewRepositoryFilesystem(dot, common))
	return git.Open(st, wt)
}

// maxPointer bounds a .git file or a commondir file: one path.
const maxPointer = 4096

// readPointer reads a small file naming another directory.
func readPointer(fs billy.Filesystem, name string) (string, error) {
	f, err := fs.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPointer+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxPointer {
		return "", fmt.Errorf("%s is longer than %d bytes", name, maxPointer)
	}
	return string(b), nil
}

// gitDirFromFile follows a .git file ("gitdir: <path>"), as a linked
// worktree or a submodule has.
func gitDirFromFile(path string, fs billy.Filesystem) (billy.Filesystem, error) {
	line, err := readPointer(fs, git.GitDirName)
	if err != nil {
		return nil, err
	}
	const prefix = "gitdir: "
	if !strings.HasPrefix(line, prefix) {
		return nil, errors.New(".git file has no gitdir: prefix")
	}
	gitdir := strings.TrimSpace(strings.Split(line[len(prefix):], "\n")[0])
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(path, gitdir)
	}
	return localFS(gitdir), nil
}

// commonDir is the main repository's .git of a linked worktree, or nil.
func commonDir(dot billy.Filesystem) (billy.Filesystem, error) {
	text, err := readPointer(dot, "commondir")
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p := strings.TrimSpace(text)
	if p == "" {
		return nil, nil
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dot.Root(), p)
	}
	common := localFS(p)
	if _, err := common.Stat(""); err != nil {
		if os.IsNotExist(err) {
			return nil, git.ErrRepositoryIncomplete
		}
		return nil, err
	}
	return common, nil
}

// localFS is osfs.New(dir) with every read-only open made by bounded.Open.
func localFS(dir string) billy.Filesystem {
	return chroot.New(nonBlockingOS{osfs.Default}, dir)
}

// nonBlockingOS is the operating system's file system, whose read-only
// opens never block and return only regular files.
type nonBlockingOS struct{ *osfs.ChrootOS }

const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREATE | os.O_TRUNC

func (o nonBlockingOS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if flag&writeFlags != 0 {
		return o.ChrootOS.OpenFile(name, flag, perm)
	}
	f, err := bounded.Open(name)
	if err != nil {
		return nil, err
	}
	return readOnlyFile{f}, nil
}

func (o nonBlockingOS) Open(name string) (billy.File, error) {
	return o.OpenFile(name, os.O_RDONLY, 0)
}

// readOnlyFile is an open regular file as billy sees one. Nothing writes
// it, so there is nothing to lock.
type readOnlyFile struct{ *os.File }

func (readOnlyFile) Lock() error   { return nil }
func (readOnlyFile) Unlock() error { return nil }
