package runner

import (
	"errors"
	"io/fs"

	"github.com/go-git/go-git/v5"
	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/internal/bounded"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/runner/protocol"
	"github.com/corvidlabs/fledge-go/termsafe"
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
		return s.fledgeConfig()
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

// fledgeConfig is the project's fledge.toml as JSON-able values. A missing
// or unparsable file is nil, as the Rust fledge answers. The file is read
// as a regular file inside the project, links resolved only within it: a
// link to a credentials file elsewhere, a named pipe, a device or a huge
// file is answered with an empty config, and the user is told once why.
func (s *session) fledgeConfig() any {
	data, err := bounded.ReadInRoot(s.project.Root, "fledge.toml", maxFledgeConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		s.warnOnce("fledge_config", "fledge_config answered with an empty config: "+termsafe.Line(err.Error()))
		return map[string]any{}
	}
	var v map[string]any
	if err := toml.Unmarshal(data, &v); err != nil {
		s.warnOnce("fledge_config", "fledge_config answered with null: fledge.toml is not valid TOML: "+termsafe.Line(err.Error()))
		return nil
	}
	return v
}
