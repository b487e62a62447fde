package runner

import (
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/runner/protocol"
)

// maxFledgeConfig bounds how much of a project's fledge.toml is read.
const maxFledgeConfig = 1 << 20

// maxMetadataKeys bounds the keys answered in one request.
const maxMetadataKeys = 32

// metadata answers with the requested keys (metadata grant required;
// without it the answer is {}). Unknown keys are null.
func (s *session) metadata(m *protocol.Outbound) {
	out := map[string]any{}
	if !s.granted.Metadata {
		s.deny(manifest.CapMetadata)
		s.respond(m.ID, out)
		return
	}
	for i, k := range m.Keys {
		if i == maxMetadataKeys {
			break
		}
		if _, done := out[k]; done {
			continue
		}
		out[k] = s.metadataKey(k)
	}
	s.respond(m.ID, out)
}

func (s *session) metadataKey(k string) any {
	switch k {
	case protocol.MetaEnv:
		return envMap(s.r.Environ())
	case protocol.MetaFledgeConfig:
		if s.project == nil {
			return nil
		}
		return readFledgeConfig(filepath.Join(s.project.Root, "fledge.toml"))
	case protocol.MetaGitTags:
		if r := s.gitRepo(); r != nil {
			return gitTags(r)
		}
		return []string{}
	case protocol.MetaGitStatus:
		if r := s.gitRepo(); r != nil {
			return gitStatusLines(r)
		}
		return []string{}
	case protocol.MetaGitLog:
		if r := s.gitRepo(); r != nil {
			return gitLog(r)
		}
		return []string{}
	}
	return nil
}

// gitRepo opens the project's repository once per run: the one holding
// the project root, unless its work tree is the user's home or above it (a
// dotfiles repository is not the project's).
func (s *session) gitRepo() *git.Repository {
	if !s.repoSet {
		s.repoSet = true
		if s.project != nil {
			s.repo = openRepo(s.project.Root)
		}
		if s.repo != nil {
			wt, err := s.repo.Worktree()
			if err != nil || (s.r.UserHome != "" && manifest.Within(realOrAbs(wt.Filesystem.Root()), realOrAbs(s.r.UserHome))) {
				s.repo = nil
			}
		}
	}
	return s.repo
}

// readFledgeConfig parses fledge.toml into JSON-able values, or nil.
func readFledgeConfig(path string) any {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFledgeConfig+1))
	if err != nil || len(data) > maxFledgeConfig {
		return nil
	}
	var v map[string]any
	if err := toml.Unmarshal(data, &v); err != nil {
		return nil
	}
	return v
}
