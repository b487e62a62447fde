package runner

import (
	"runtime"
	"strings"
	"testing"
)

// machoPPC is the start of a 32-bit PowerPC Mach-O executable (big-endian
// magic, CPU_TYPE_POWERPC): a platform no machine fledge runs on has.
const machoPPC = "\xfe\xed\xfa\xce\x00\x00\x00\x12\x00\x00\x00\x00\x00\x00\x00\x02"

// A binary built for another platform is refused with both platforms
// named, before anything starts, not left to fail with the kernel's
// "exec format error".
func TestForeignBinaryRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, proto := range []string{"", "fledge-v1"} {
		name := "fledge-plugin-todo" + proto
		e.install(plugin{name: name, protocol: proto, commands: map[string]string{"todo" + proto: "bin/fledge-todo"},
			files: map[string]string{"bin/fledge-todo": "#!/bin/sh\necho ran\n"}})
		writeFile(t, e.paths.PluginDir(name)+"/bin/fledge-todo", machoPPC+strings.Repeat("\x00", 64), 0o755)
		res, err := e.run(Request{Command: "todo" + proto})
		want := "plugin " + name + ": bin/fledge-todo is a macOS ppc executable; this machine is " + runtime.GOOS + "/" + runtime.GOARCH
		if CodeOf(err) != CodeUnsupportedPlatform || err.Error() != want || res.Started {
			t.Errorf("protocol %q: err %v (code %q), started %v; want %q", proto, err, CodeOf(err), res.Started, want)
		}
	}
}
