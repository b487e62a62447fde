// Architecture tests: the import graph follows the layout in STYLE.md.
// Dependencies point one way (cmd → install/runner/registry →
// manifest/lockfile), cobra and huh live only under cmd, and the wire types
// plugin authors import stay free of fledge's internals.
package fledge_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/corvidlabs/fledge-go"

// deps returns, for every package of the module, its transitive imports.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Deps \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, list, _ := strings.Cut(line, ":")
		m[pkg] = strings.Fields(list)
	}
	return m
}

// sharedLeaves are leaf packages that other leaves may import.
var sharedLeaves = map[string]bool{
	module + "/termsafe":         true,
	module + "/internal/bounded": true,
	module + "/internal/redact":  true,
	module + "/repourl":          true,
	module + "/internal/semver":  true,
}

func TestImportRules(t *testing.T) {
	all := deps(t)
	if len(all) < 8 {
		t.Fatalf("go list found only %d packages", len(all))
	}
	rules := []struct {
		pkg    string // package path prefix (relative to the module; "" = any)
		banned []string
		why    string
	}{
		{"", []string{module + "/cmd/"}, "nothing imports cmd"},
		{"", []string{"github.com/spf13/cobra", "charm.land/", "github.com/charmbracelet/"}, "cobra and huh live only under cmd"},
		{"runner", []string{module + "/install"}, "runner never imports install"},
		{"runner", []string{module + "/provenance", "github.com/hiddeco/sshsig"}, "signatures are verified at install, update and sync, never on the path that runs a plugin"},
		{"provenance", []string{module + "/install", module + "/runner", module + "/registry", module + "/gitfetch", module + "/settings", module + "/policy"}, "provenance verifies objects against signers it is given: the fetch and the policy are install's"},
		{"runner", []string{"github.com/modelcontextprotocol/"}, "the MCP SDK lives in mcpserver"},
		{"catalog", []string{"github.com/modelcontextprotocol/"}, "the tool catalog is data: serving it is mcpserver's"},
		{"catalog", []string{module + "/install"}, "the catalog asks settings for tiers and grants, never the orchestrator (and its git and wasm compiler)"},
		{"trust", []string{module + "/"}, "trust is a leaf (but for termsafe and the one URL parser): registry and policy use its tier names"},
		{"settings", []string{module + "/install", module + "/runner", module + "/registry", module + "/catalog", module + "/mcpserver"}, "settings answers everyone below cmd, and keeps the runner free of the HTTP stack"},
		{"manifest", []string{module + "/"}, "manifest is a leaf (but for termsafe, whose classifier decides which hooks can be shown)"},
		{"termsafe", []string{module + "/"}, "termsafe is a leaf"},
		{"internal/bounded", []string{module + "/"}, "the bounded reader is a leaf that leaves may use"},
		{"internal/redact", []string{module + "/"}, "the one redactor is a leaf, so the lowest packages may use it"},
		{"internal/semver", []string{module + "/"}, "the version parser is a leaf that manifest, registry and install share"},
		{"internal/procgroup", []string{module + "/"}, "process groups are a leaf that install and runner share"},
		{"lockfile", []string{module + "/install", module + "/runner", module + "/registry"}, "lockfile sits below the orchestrators"},
		{"protocol", []string{module + "/"}, "the wire types depend on nothing of fledge"},
		{"wasmhost", []string{module + "/runner", module + "/install", module + "/lockfile", module + "/home", module + "/manifest", module + "/registry"}, "the wasm sandbox speaks only the wire protocol; grants are the engine's"},
		{"pluginsdk", []string{module + "/runner", module + "/install", module + "/lockfile", module + "/home", module + "/manifest"}, "the SDK needs only the wire types"},
		{"project", []string{module + "/"}, "project is a leaf"},
		{"confine", []string{module + "/"}, "confine is a leaf: it draws and applies profiles from what the runner and install give it"},
		{"repourl", []string{module + "/"}, "the one git-URL parser is a leaf that registry, policy and install share"},
		{"binfmt", []string{module + "/"}, "binfmt is a leaf"},
		{"agenthosts", []string{module + "/"}, "wiring fledge into agent hosts' files is a leaf: the command layer says what to run"},
		{"kvstore", []string{module + "/install", module + "/runner", module + "/lockfile", module + "/manifest"}, "the plugin store needs only home: runner and install both use it"},
		{"policy", []string{module + "/install", module + "/runner", module + "/registry", module + "/lockfile", module + "/grantlog", module + "/gitfetch"}, "policy is a leaf that install, runner and cmd all apply"},
		{"inventory", []string{module + "/install", module + "/runner", module + "/registry", module + "/policy", "github.com/CycloneDX/"}, "the inventory only describes records; cyclonedx-go is its tests' reference, never linked (its init costs every command)"},
		{"grantlog", []string{module + "/install", module + "/runner", module + "/registry", module + "/policy"}, "the grant log sits beside lockfile, below the orchestrators"},
		{"ociartifact", []string{module + "/install", module + "/runner", module + "/lockfile", module + "/manifest", module + "/settings"}, "the OCI artifact format knows trees, not what install does with them"},
		{"runner", []string{"oras.land/", "github.com/opencontainers/"}, "running a plugin never reaches a registry"},
		{"publish", []string{module + "/install", module + "/runner", module + "/lockfile", module + "/manifest"}, "publish only talks to GitHub and git"},
	}
	for pkg, ds := range all {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		if strings.HasPrefix(rel, "cmd/") || rel == "cmd" {
			continue
		}
		for _, r := range rules {
			if r.pkg != "" && rel != r.pkg && !strings.HasPrefix(rel, r.pkg+"/") {
				continue
			}
			for _, d := range ds {
				for _, b := range r.banned {
					// A leaf may still use the leaves every package shares: the
					// bounded reader, the one sanitiser and the one redactor
					// (each held a leaf by its own rule).
					if strings.HasPrefix(d, b) && !(b == module+"/" && sharedLeaves[d]) {
						t.Errorf("%s imports %s: %s", rel, d, r.why)
					}
				}
			}
		}
	}
}

// The fledge binary does not link the man page renderer (it costs start-up
// on every invocation and only cmd/internal/gendocs needs it), nor the
// registry the OCI tests run, nor oras-go's root package (its init).
func TestFledgeDoesNotLinkDocs(t *testing.T) {
	fledge, ok := deps(t)[module+"/cmd/fledge"]
	if !ok {
		t.Fatal("go list did not list cmd/fledge")
	}
	if !slices.Contains(fledge, "github.com/spf13/cobra") {
		t.Fatalf("cmd/fledge's dependencies lack cobra: %v", fledge)
	}
	for _, pkg := range fledge {
		if strings.HasPrefix(pkg, "github.com/distribution/") || strings.HasSuffix(pkg, "/ocitest") {
			t.Errorf("cmd/fledge links %s: the test registry is for tests only", pkg)
		}
		if pkg == "oras.land/oras-go/v2" {
			t.Errorf("cmd/fledge links %s, whose init compiles a regular expression on every start: use ociartifact.Target and Source", pkg)
		}
		if pkg == "github.com/spf13/cobra/doc" || strings.HasPrefix(pkg, "github.com/cpuguy83/go-md2man") || strings.HasPrefix(pkg, "github.com/russross/blackfriday") {
			t.Errorf("cmd/fledge links %s", pkg)
		}
	}
}

// The fledge binary links internal/semver, never upstream Masterminds
// semver, whose init compiles six regular expressions on every start
// (internal/semver's doc.go); upstream is its tests' reference.
func TestFledgeDoesNotLinkUpstreamSemver(t *testing.T) {
	fledge, ok := deps(t)[module+"/cmd/fledge"]
	if !ok {
		t.Fatal("go list did not list cmd/fledge")
	}
	if !slices.Contains(fledge, module+"/internal/semver") {
		t.Fatalf("cmd/fledge's dependencies lack internal/semver: %v", fledge)
	}
	for _, pkg := range fledge {
		if strings.HasPrefix(pkg, "github.com/Masterminds/semver") {
			t.Errorf("cmd/fledge links %s", pkg)
		}
	}
}

// The fledge binary keeps the linker's dead code elimination of methods:
// one reachable call of reflect's Method or MethodByName with a name not
// known at link time (text/template's evaluation of a field, which cobra's
// Set*Template calls reach; spf13/cobra#1956) makes the linker keep every
// exported method of every reachable type, 3.8 MB more binary to map on
// every start. The linker marks such a function <ReflectMethod> in its
// -dumpdep output; the failure names the chain from main that reaches it.
func TestFledgeKeepsDeadCodeElimination(t *testing.T) {
	cmd := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", t.TempDir()+"/fledge", "./cmd/fledge")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -ldflags=-dumpdep: %v\n%s", err, tail(out))
	}
	callers := map[string]string{} // a symbol → the first symbol found to reach it
	var reflective []string
	for _, line := range strings.Split(string(out), "\n") {
		from, to, ok := strings.Cut(line, " -> ")
		if !ok {
			continue
		}
		to = strings.TrimSuffix(to, " <ReflectMethod>")
		if f, marked := strings.CutSuffix(from, " <ReflectMethod>"); marked {
			from = f
			if !slices.Contains(reflective, from) {
				reflective = append(reflective, from)
			}
		}
		if _, seen := callers[to]; !seen {
			callers[to] = from
		}
	}
	if len(out) < 1<<20 {
		t.Fatalf("go build -ldflags=-dumpdep printed only %d bytes: the check saw no dependency graph\n%s", len(out), tail(out))
	}
	for _, fn := range reflective {
		chain := []string{fn}
		for s := fn; len(chain) < 40; {
			c, ok := callers[s]
			if !ok || c == "_" {
				break
			}
			chain = append(chain, c)
			s = c
		}
		t.Errorf("%s calls reflect's Method or MethodByName with a name only known at run time, which keeps every exported method in the binary; it is reached from:\n  %s", fn, strings.Join(chain[1:], "\n  "))
	}
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// fledge as releases build it (the fledge_split tag) is fastrun alone: a
// plugin command starts without the command tree and the libraries only
// other commands use (cmd/internal/fastrun's doc.go), which are
// fledge-core's.
func TestSplitFledgeLinksOnlyTheRunPath(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "fledge_split", "-deps", "./cmd/fledge").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := strings.Fields(string(out))
	if !slices.Contains(pkgs, module+"/cmd/internal/fastrun") || !slices.Contains(pkgs, module+"/runner") {
		t.Fatalf("the split fledge does not link fastrun and the runner: %v", pkgs)
	}
	for _, pkg := range pkgs {
		for _, banned := range []string{module + "/cmd/internal/cli", module + "/install", module + "/gitfetch", module + "/ociartifact",
			module + "/mcpserver", module + "/provenance", module + "/registry", "github.com/spf13/cobra", "charm.land/",
			"github.com/go-git/go-git/v5/plumbing/transport", "oras.land/", "github.com/modelcontextprotocol/", "github.com/ProtonMail/",
			// The wasm runtime: its package initialisation (wazero's, and
			// what it links) cost every native run 0.4-0.5 ms and ~50 page
			// faults. A wasm plugin's run is fledge-core's (runner.Runner.Wasm
			// is nil here).
			module + "/wasmhost", module + "/runner/wasmengine", "github.com/tetratelabs/wazero",
			// binfmt reads headers with names of its own (its doc.go).
			"debug/elf", "debug/macho", "debug/pe", "debug/dwarf"} {
			if pkg == banned || strings.HasPrefix(pkg, banned+"/") || strings.HasSuffix(banned, "/") && strings.HasPrefix(pkg, banned) {
				t.Errorf("the split fledge links %s: that is fledge-core's", pkg)
			}
		}
	}
}
