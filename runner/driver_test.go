package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/corvidlabs/fledge-go/manifest"
)

// driver installs the scripted shell plugin (testdata/plugins/driver.sh) as
// command "drive" with the given grants and script lines.
func (e *testEnv) driver(grants manifest.Capabilities, lines ...string) string {
	e.t.Helper()
	dir := e.installScript("fledge-plugin-drive", "drive", "driver.sh", "fledge-v1", grants)
	writeFile(e.t, filepath.Join(dir, "script.txt"), strings.Join(lines, "\n")+"\n", 0o644)
	return dir
}

// responses reads what the driver received, one decoded message per line.
func (e *testEnv) responses(dir string) []map[string]any {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "responses.log"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		e.t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			e.t.Fatalf("response %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// rawResponses returns responses.log as text.
func (e *testEnv) rawResponses(dir string) string {
	data, _ := os.ReadFile(filepath.Join(dir, "responses.log"))
	return string(data)
}

func (e *testEnv) mustRun(req Request) *Result {
	e.t.Helper()
	res, err := e.run(req)
	if err != nil {
		e.t.Fatalf("run %s: %v\nstderr:\n%s", req.Command, err, e.stderr)
	}
	return res
}
