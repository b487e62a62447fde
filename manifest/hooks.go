package manifest

// Hooks is the [hooks] table: shell commands fledge runs at points of a
// plugin's life. Each runs code, so each is shown and approved like a
// capability before it may run.
type Hooks struct {
	Build         string `toml:"build,omitempty"`
	PostInstall   string `toml:"post_install,omitempty"`
	PostRemove    string `toml:"post_remove,omitempty"`
	PreInit       string `toml:"pre_init,omitempty"`
	PostWorkStart string `toml:"post_work_start,omitempty"`
	PrePush       string `toml:"pre_push,omitempty"`
}

// Hook names, as written in plugin.toml.
const (
	HookBuild         = "build"
	HookPostInstall   = "post_install"
	HookPostRemove    = "post_remove"
	HookPreInit       = "pre_init"
	HookPostWorkStart = "post_work_start"
	HookPrePush       = "pre_push"
)

// HookNames lists every hook in the order of a plugin's life.
var HookNames = []string{HookBuild, HookPostInstall, HookPostRemove, HookPreInit, HookPostWorkStart, HookPrePush}

// Map returns the non-empty hooks by name.
func (h Hooks) Map() map[string]string {
	out := map[string]string{}
	for _, n := range HookNames {
		if v := h.Get(n); v != "" {
			out[n] = v
		}
	}
	return out
}

// Get returns the command of the named hook ("" when unset or unknown).
func (h Hooks) Get(name string) string {
	switch name {
	case HookBuild:
		return h.Build
	case HookPostInstall:
		return h.PostInstall
	case HookPostRemove:
		return h.PostRemove
	case HookPreInit:
		return h.PreInit
	case HookPostWorkStart:
		return h.PostWorkStart
	case HookPrePush:
		return h.PrePush
	}
	return ""
}
