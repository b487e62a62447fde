package provenancetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Repo is a git repository made with the git binary, isolated from the
// user's and the system's git configuration.
type Repo struct {
	Dir string
	// Env is added to every git command (GNUPGHOME for OpenPGP signing).
	Env []string
	tb  testing.TB
}

// NewRepo makes a repository in dir with one commit of files.
func NewRepo(tb testing.TB, dir string, files map[string]string) *Repo {
	tb.Helper()
	r := &Repo{Dir: dir, tb: tb}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	r.Git("init", "-q", "-b", "main")
	r.Commit("initial", files)
	return r
}

// Git runs git in the repository and returns its output.
func (r *Repo) Git(args ...string) string {
	r.tb.Helper()
	env := append([]string{
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=" + r.Dir,
		"GIT_AUTHOR_NAME=Ann", "GIT_AUTHOR_EMAIL=ann@example.com",
		"GIT_COMMITTER_NAME=Ann", "GIT_COMMITTER_EMAIL=ann@example.com",
	}, r.Env...)
	return run(r.tb, env, r.Dir, "git", args...)
}

// Commit writes files and commits them (extra: more git commit flags,
// such as "-S").
func (r *Repo) Commit(msg string, files map[string]string, extra ...string) {
	r.tb.Helper()
	for name, body := range files {
		p := filepath.Join(r.Dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			r.tb.Fatal(err)
		}
	}
	r.Git("add", "-A")
	r.Git(append([]string{"commit", "-q", "--allow-empty", "-m", msg}, extra...)...)
}

// SignWithSSH makes git sign with key (gpg.format = ssh).
func (r *Repo) SignWithSSH(key SSHKey) {
	r.tb.Helper()
	r.Git("config", "gpg.format", "ssh")
	r.Git("config", "user.signingkey", key.Path)
}

// SignWithGPG makes git sign with the OpenPGP key fpr of g (program: the
// gpg to run, "" for gpg).
func (r *Repo) SignWithGPG(g *GPG, fpr, program string) {
	r.tb.Helper()
	r.Env = append(r.Env, g.Env()...)
	r.Git("config", "gpg.format", "openpgp")
	r.Git("config", "user.signingkey", fpr)
	if program != "" {
		r.Git("config", "gpg.program", program)
	}
}

// Head is the commit at HEAD.
func (r *Repo) Head() string {
	r.tb.Helper()
	return trim(r.Git("rev-parse", "HEAD"))
}

func trim(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}
