package runner

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/internal/bounded"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/protocol"
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
		// The user's environment without its secrets, as exec's
		// commands get it: what the metadata grant means.
		m := map[string]string{}
		for _, kv := range confine.FilterEnv(s.r.Environ()) {
			name, value, _ := strings.Cut(kv, "=")
			m[name] = value
		}
		return m
	case protocol.MetaFledgeConfig:
		if s.project == nil {
			return nil
		}
		return s.fledgeConfig()
	case protocol.MetaGitTags, protocol.MetaGitStatus, protocol.MetaGitLog:
		return s.gitMetadata(k)
	}
	return nil
}

// gitMetadata answers git_tags, git_status or git_log with git's own
// lines (package gitstate): [] outside a repository, as the Rust fledge
// answers, and null when git cannot answer for the project's repository,
// with the reason shown once: an empty list would claim a clean worktree.
func (s *session) gitMetadata(k string) any {
	r := s.gitRepo()
	if r == nil {
		return []string{}
	}
	var lines []string
	var err error
	switch k {
	case protocol.MetaGitTags:
		lines, err = r.Tags(s.ctx)
	case protocol.MetaGitStatus:
		lines, err = r.Status(s.ctx)
	default:
		lines, err = r.Log(s.ctx)
	}
	if err != nil {
		s.warnOnce("git:"+k, k+" answered with null: "+termsafe.Line(err.Error()))
		return nil
	}
	return lines
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
