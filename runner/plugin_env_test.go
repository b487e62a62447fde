package runner

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/settings"
)

// The user's secrets, planted in fledge's environment for the plugins
// below to look for.
const (
	plantedToken  = "ghp_plantedplantedplantedplanted0123"
	plantedAWSKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// envPlugins are the plugins that print their environment: a shell script
// with inherited stdio, and a Python fledge-v1 plugin (its environment
// line by line as output messages).
var envPlugins = []struct {
	name, protocol, bin, script string
}{
	{"sh", "", "bin/env.sh", "#!/bin/sh\n# reads $GITHUB_TOKEN when it is there\nenv\n"},
	{"python", "fledge-v1", "bin/env.py", `#!/usr/bin/env python3
import json, os, sys
sys.stdin.readline()  # init
# reads GITHUB_TOKEN when it is there
for k, v in sorted(os.environ.items()):
    print(json.dumps({"type": "output", "text": k + "=" + v + "\n"}), flush=True)
`},
}

// A native plugin's process gets the base environment and what it is
// granted: a secret it declares is withheld until granted and named in one
// note with the command that grants it, never with its value; a granted
// one is there; the admin policy takes it away again; and with confinement
// turned off it gets the whole environment, as before.
func TestPluginEnvironment(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH: the Python plugin needs it (CI installs it)")
	}
	cases := []struct {
		name     string
		declares string // the [capabilities] environment line
		grants   []string
		policy   string // an admin policy file's text
		off      string // Runner.Unconfined
		present  []string
		absent   []string
		note     string // "" for no note
	}{
		{name: "declared, not granted", declares: `environment = ["GITHUB_TOKEN", "AWS_*"]`,
			present: []string{"LANG=C", "FLEDGE_PLUGIN_DIR=", "PATH=", "HOME=", "TERM=xterm"},
			absent:  []string{"GITHUB_TOKEN=", "AWS_SECRET_ACCESS_KEY=", "UNRELATED=", "HTTPS_PROXY="},
			note: "fledge: plugin fledge-plugin-envp is not given AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN (it declares them, they are not granted): " +
				"fledge plugins grant fledge-plugin-envp env:AWS_SECRET_ACCESS_KEY env:GITHUB_TOKEN\n"},
		{name: "declared and granted", declares: `environment = ["GITHUB_TOKEN", "AWS_*"]`, grants: []string{"GITHUB_TOKEN", "AWS_*"},
			present: []string{"GITHUB_TOKEN=" + plantedToken, "AWS_SECRET_ACCESS_KEY=" + plantedAWSKey, "LANG=C"},
			absent:  []string{"UNRELATED="}},
		{name: "granted, but the policy forbids environment", declares: `environment = ["GITHUB_TOKEN", "AWS_*"]`, grants: []string{"GITHUB_TOKEN"},
			policy:  "[capabilities]\nlocal = [\"store\"]\nunverified = [\"store\"]\n",
			present: []string{"LANG=C"}, absent: []string{"GITHUB_TOKEN=", "AWS_SECRET_ACCESS_KEY="},
			note: "fledge: plugin fledge-plugin-envp is not given AWS_SECRET_ACCESS_KEY (it declares them, they are not granted): " +
				"fledge plugins grant fledge-plugin-envp env:AWS_SECRET_ACCESS_KEY; " +
				"nor GITHUB_TOKEN, which plugins.toml grants and the admin policy withholds (see fledge plugins policy)\n"},
		{name: "declares nothing, as a Rust-era plugin: its program names GITHUB_TOKEN",
			present: []string{"LANG=C"}, absent: []string{"GITHUB_TOKEN=", "AWS_SECRET_ACCESS_KEY="},
			note: "fledge: plugin fledge-plugin-envp is not given GITHUB_TOKEN (its script names them): fledge plugins grant fledge-plugin-envp env:GITHUB_TOKEN\n"},
		{name: "declares nothing, granted by name", grants: []string{"GITHUB_TOKEN"},
			present: []string{"GITHUB_TOKEN=" + plantedToken}, absent: []string{"AWS_SECRET_ACCESS_KEY="}},
		{name: "confinement turned off", declares: `environment = ["GITHUB_TOKEN"]`, off: "FLEDGE_CONFINE=off",
			present: []string{"GITHUB_TOKEN=" + plantedToken, "AWS_SECRET_ACCESS_KEY=" + plantedAWSKey, "UNRELATED=1", "HTTPS_PROXY="}},
	}
	for _, p := range envPlugins {
		for _, c := range cases {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				e.environ = append(e.environ, "TERM=xterm", "UNRELATED=1", "GITHUB_TOKEN="+plantedToken,
					"AWS_SECRET_ACCESS_KEY="+plantedAWSKey, "HTTPS_PROXY=http://me:hunter2@proxy.example:3128")
				m := "[plugin]\nname = \"fledge-plugin-envp\"\nversion = \"1.2.3\"\n"
				if p.protocol != "" {
					m += "protocol = \"" + p.protocol + "\"\n"
				}
				m += "\n[[commands]]\nname = \"envp\"\nbinary = \"" + p.bin + "\"\n\n[capabilities]\n" + c.declares + "\n"
				e.install(plugin{name: "fledge-plugin-envp", protocol: p.protocol, manifest: m, commands: map[string]string{"envp": p.bin},
					files: map[string]string{p.bin: p.script}, grants: manifest.Capabilities{Environment: c.grants}})
				r := e.runner()
				r.Unconfined = c.off
				if c.policy != "" {
					file := filepath.Join(e.dir, "policy.toml")
					writeFile(t, file, c.policy, 0o644)
					pol, err := policy.Load(policy.Inputs{Env: file})
					if err != nil {
						t.Fatal(err)
					}
					r.Settings = settings.New(nil, pol)
				}
				res, err := e.runWith(r, Request{Command: "envp"})
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("run: %v\nstderr:\n%s", err, e.stderr)
				}
				lines := strings.Split(e.stdout.String(), "\n")
				has := func(prefix string) bool {
					for _, l := range lines {
						if strings.HasPrefix(l, prefix) {
							return true
						}
					}
					return false
				}
				for _, want := range c.present {
					if !has(want) {
						t.Errorf("the plugin's environment lacks %q:\n%s", want, e.stdout)
					}
				}
				for _, not := range c.absent {
					if has(not) {
						t.Errorf("the plugin's environment holds %q:\n%s", not, e.stdout)
					}
				}
				var notes []string
				for _, l := range strings.SplitAfter(e.stderr.String(), "\n") {
					if strings.Contains(l, "is not given") {
						notes = append(notes, l)
					}
				}
				if got := strings.Join(notes, ""); got != c.note {
					t.Errorf("notes:\n%s\nwant:\n%s", got, c.note)
				}
				for _, v := range []string{plantedToken, plantedAWSKey, "hunter2"} {
					if strings.Contains(e.stderr.String(), v) {
						t.Errorf("stderr holds a value: %s", e.stderr)
					}
				}
			})
		}
	}
}

// The Go test plugin's own environment follows the same rule (a compiled
// binary, read only for its first 256 KiB when guessing what it wants).
func TestGoPluginEnvironment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.environ = append(e.environ, "GITHUB_TOKEN="+plantedToken, "FLEDGE_GOPLUGIN_X=1")
	e.install(plugin{name: "fledge-plugin-go", commands: map[string]string{"goenv": "bin/goplugin"},
		copies: map[string]string{"bin/goplugin": goPlugin}})
	res, err := e.run(Request{Command: "goenv", Args: []string{"env"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: %v\nstderr:\n%s", err, e.stderr)
	}
	if out := e.stdout.String(); strings.Contains(out, plantedToken) || !strings.Contains(out, "FLEDGE_GOPLUGIN_X=1") {
		t.Errorf("the Go plugin's environment:\n%s", out)
	}
	if strings.Contains(e.stderr.String(), plantedToken) {
		t.Errorf("stderr holds the value: %s", e.stderr)
	}
}
