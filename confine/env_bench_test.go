package confine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchEnviron is a developer's environment: a long PATH, locale,
// terminal, toolchains, a proxy, tokens and unrelated settings.
var benchEnviron = []string{
	"PATH=/home/u/.pyenv/shims:/home/u/.cargo/bin:/home/u/go/bin:/usr/local/go/bin:/home/u/.nvm/versions/node/v20.11.0/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin",
	"HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/bash", "PWD=/home/u/src/app", "LANG=en_US.UTF-8", "LC_ALL=en_US.UTF-8",
	"TERM=xterm-256color", "COLORTERM=truecolor", "EDITOR=vim", "PAGER=less", "XDG_CONFIG_HOME=/home/u/.config",
	"GOPATH=/home/u/go", "GOCACHE=/home/u/.cache/go-build", "GOFLAGS=-mod=mod", "CARGO_HOME=/home/u/.cargo",
	"RUSTUP_HOME=/home/u/.rustup", "PYENV_ROOT=/home/u/.pyenv", "NVM_DIR=/home/u/.nvm", "npm_config_cache=/home/u/.npm",
	"HTTPS_PROXY=http://proxy.corp:3128", "NO_PROXY=localhost,127.0.0.1", "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1",
	"GITHUB_TOKEN=ghp_0123456789abcdefghij0123456789abcdef", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
	"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "DATABASE_URL=postgres://u:pw@db/app",
	"HISTSIZE=10000", "LS_COLORS=rs=0:di=01;34:ln=01;36", "DISPLAY=:0", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus",
	"XDG_RUNTIME_DIR=/run/user/1000", "SHLVL=1", "_=/usr/bin/fledge",
}

// BenchmarkEnvironment is what drawing a plugin's environment costs a
// run, once the value rules' expressions are compiled.
func BenchmarkEnvironment(b *testing.B) {
	Environment(benchEnviron, nil)
	b.ReportAllocs()
	for b.Loop() {
		Environment(benchEnviron, []string{"GITHUB_TOKEN"})
	}
}

// BenchmarkNamedIn is what guessing what a plugin declaring no environment
// wanted costs a run: a 16 KiB script (the corpus's longest are 10 to 14
// KiB) searched for the names a developer's environment withholds.
func BenchmarkNamedIn(b *testing.B) {
	self := filepath.Join(b.TempDir(), "script")
	script := strings.Repeat("echo \"${FIGMA_TOKEN:-}\" | curl -H \"X-Token: $API\" https://api.example.com/v1/files\n", 200)
	if err := os.WriteFile(self, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		b.Fatal(err)
	}
	_, withheld, _ := Environment(benchEnviron, nil)
	b.ReportAllocs()
	for b.Loop() {
		NamedIn(self, withheld)
	}
}
