package runner

import (
	"encoding/json"
	"fmt"

	"github.com/corvidlabs/fledge-go/kvstore"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/protocol"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// kv is the plugin's store, which takes over what the Rust fledge stored
// for it (see package kvstore).
func (s *session) kv() *kvstore.Store { return kvstore.ForPlugin(s.r.Paths, s.t.Entry.Name) }

// store persists a key (fire and forget). Without the store grant it is
// dropped. A null value deletes the key. Values must be strings.
func (s *session) store(m *protocol.Outbound) {
	if !s.granted.Store {
		s.deny(manifest.CapStore)
		return
	}
	var value *string
	if len(m.Value) > 0 && string(m.Value) != "null" {
		var v string
		if err := json.Unmarshal(m.Value, &v); err != nil {
			s.r.UI.Warn(s.name, fmt.Sprintf("store %s ignored: the value must be a string", quote(m.Key)))
			return
		}
		value = &v
	}
	if err := s.kv().Set(m.Key, value); err != nil {
		s.r.UI.Warn(s.name, fmt.Sprintf("store %s failed: %s", quote(m.Key), termsafe.EscapeText(err.Error())))
	}
}

// load answers with the stored string, or null (always null without the
// store grant).
func (s *session) load(m *protocol.Outbound) {
	if !s.granted.Store {
		s.deny(manifest.CapStore)
		s.respond(m.ID, nil)
		return
	}
	v, ok, err := s.kv().Get(m.Key)
	if err != nil {
		s.warnOnce("load-error", fmt.Sprintf("load failed: %s", termsafe.EscapeText(err.Error())))
	}
	if !ok {
		s.respond(m.ID, nil)
		return
	}
	s.respond(m.ID, v)
}
