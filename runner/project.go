package runner

import (
	"github.com/corvidlabs/fledge-go/project"
	"github.com/corvidlabs/fledge-go/project/gitstate"
	"github.com/corvidlabs/fledge-go/protocol"
)

// detectProject describes the directory fledge runs in (package project
// owns detection), or nil when it cannot be resolved, where the Rust
// fledge sends "project": null.
func detectProject(cwd string) *project.Info {
	if cwd == "" {
		return nil
	}
	p, err := project.Detect(cwd)
	if err != nil {
		return nil
	}
	return &p
}

// wireProject is the init message's project: Rust's keys (name, root,
// language, git) and fledge's beside them (languages, git.root). The git
// state is package gitstate's answer; when it fails closed, the reason is
// kept for the warning shown once init is sent.
func (s *session) wireProject() *protocol.Project {
	p := s.project
	if p == nil {
		return nil
	}
	w := &protocol.Project{Name: p.Name, Root: p.Root, Language: p.Language, Languages: p.Languages}
	if r := s.gitRepo(); r != nil {
		st := r.State(s.ctx)
		w.Git = &protocol.Git{Branch: st.Branch, Dirty: st.Dirty, Remote: st.Remote, RemoteURL: st.RemoteURL, Root: st.Root}
		s.gitWarn = st.Warning
	}
	return w
}

// gitRepo finds the project's repository once per run (package gitstate
// leaves out a repository whose work tree is the user's home or above
// it: a dotfiles repository is not the project's).
func (s *session) gitRepo() *gitstate.Repo {
	s.repoOnce.Do(func() {
		if s.project != nil {
			s.repo = gitstate.Open(s.ctx, s.project.Root, gitstate.Options{
				Env: s.r.Environ(), Home: s.r.UserHome, Timeout: s.r.Timeouts.Git,
			})
		}
	})
	return s.repo
}
