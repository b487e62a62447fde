package runner

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
)

// TestPythonPluginRemembers runs the protocol's minimal Python example,
// extended with its store: the second, non-interactive run answers the
// prompt with the default the first run stored.
func TestPythonPluginRemembers(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		// .ci/run installs python3, so CI always runs this; a bare machine
		// with only Go and git skips it, saying why.
		t.Skip("python3 is not on PATH: the Python plugin test needs it (CI installs it)")
	}
	e := newEnv(t)
	e.installScript("fledge-plugin-deploy", "deploy", "deploy.py", "fledge-v1", manifest.Capabilities{Store: true})
	r := e.runner()
	r.Interactive = true
	e.ui.answers = []any{"production", true}
	if _, err := e.runWith(r, Request{Command: "deploy", Args: []string{"--dry-run", "a b"}}); err != nil {
		t.Fatalf("%v\n%s", err, e.stderr)
	}
	if want := "Deployed to production (args [\"--dry-run\", \"a b\"])\n"; e.stdout.String() != want {
		t.Errorf("first run: %q, want %q", e.stdout.String(), want)
	}
	if got := strings.Join(e.ui.asked, "|"); got != "prompt:Deploy target:|confirm:Deploy to production?" {
		t.Errorf("asked %q", got)
	}
	e.stdout = &testutil.SyncBuffer{}
	res, err := e.run(Request{Command: "deploy", NonInteractive: true})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("second run: %v, exit %d\n%s", err, res.ExitCode, e.stderr)
	}
	if want := "Deployed to production (args [])\n"; e.stdout.String() != want {
		t.Errorf("second run: %q, want %q", e.stdout.String(), want)
	}
}
