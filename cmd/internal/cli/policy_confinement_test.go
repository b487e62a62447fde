//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/confine"
)

// [confinement] allow_off = false refuses FLEDGE_CONFINE=off, and require =
// true refuses to run a native plugin, or a hook, whose grants the kernel
// does not enforce: each refusal names the rule and its file.
func TestPolicyConfinementRules(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("plain", hPlugin("fledge-plugin-plain", "1.0.0", ""))
	e.local("hooked", hPlugin("fledge-plugin-hooked", "1.0.0", "\n[hooks]\npost_install = \"true\"\n"))
	e.ok("plugins", "install", "./plain", "--copy", "--yes", "--json")
	cfg := filepath.Join(e.fh, "config.toml")
	setPolicy := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(rule string, args ...string) {
		t.Helper()
		doc := e.fail("policy_denied", args...)
		if msg := hStr(doc, "error", "message"); !strings.Contains(msg, rule) || !strings.Contains(msg, cfg) {
			t.Errorf("%v: message %q names neither %q nor %s", args, msg, rule, cfg)
		}
	}

	setPolicy("[policy.confinement]\nallow_off = false\n")
	pol := hJSON(t, e.ok("plugins", "policy", "--json"))
	if v, ok := hGet(pol, "confinement", "allow_off", "value").(bool); !ok || v || hStr(pol, "confinement", "allow_off", "from", "rule") != "[policy.confinement] allow_off" {
		t.Errorf("policy --json confinement: %v", hGet(pol, "confinement"))
	}
	if txt := e.ok("plugins", "policy"); !strings.Contains(string(txt.out), "turning off: refused") {
		t.Errorf("policy text:\n%s", txt.out)
	}
	refused("[policy.confinement] allow_off", "plugins", "run", "plain")
	refused("[policy.confinement] allow_off", "plugins", "install", "./hooked", "--copy", "--yes")

	setPolicy("[policy.confinement]\nrequire = true\n")
	refused("[policy.confinement] require", "plugins", "run", "plain")
	refused("[policy.confinement] require", "plugins", "install", "./hooked", "--copy", "--yes")

	e.confined = true
	if s := confine.Detect(); s.Files && s.Network {
		if r := e.ok("plugins", "run", "plain", "--json"); !strings.Contains(string(r.out), "plain 1.0.0") {
			t.Errorf("confined run:\n%v", r)
		}
		e.ok("plugins", "install", "./hooked", "--copy", "--yes", "--json")
	} else {
		refused("[policy.confinement] require", "plugins", "run", "plain")
	}
}
