package runner

import (
	"github.com/corvidlabs/fledge-go/protocol"
)

// initMessage is the first message a protocol plugin reads: the command and
// its arguments, the directory fledge runs in (with the git state of the
// repository holding it), the plugin itself, fledge's version and the
// capabilities granted.
func (s *session) initMessage() protocol.Init {
	args := s.req.Args
	if args == nil {
		args = []string{}
	}
	c := s.granted
	return protocol.Init{
		Type:     protocol.TypeInit,
		Protocol: protocol.Version,
		Command:  s.req.Command,
		Args:     args,
		Project:  s.wireProject(),
		Plugin: protocol.PluginInfo{
			Name:    s.t.Manifest.Plugin.Name,
			Version: s.t.Manifest.Plugin.Version,
			Dir:     s.t.Root,
		},
		Fledge: protocol.FledgeInfo{Version: s.r.Version},
		Capabilities: protocol.Capabilities{
			Exec: c.Exec, Store: c.Store, Metadata: c.Metadata,
			Network: c.Network, Filesystem: c.Filesystem,
		},
	}
}
