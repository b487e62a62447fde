package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// TestMain lets the test binary act as fledge inside scripts: testscript
// puts a copy named "fledge" on PATH, and that copy runs cli.Main. Its
// system policy is the file FLEDGE_TEST_SYSTEM_POLICY names (none when
// unset, whatever this machine's /etc holds), and FLEDGE_TEST_KILL_AFTER_LOG
// kills it with SIGKILL right after the grant log took a record and before
// plugins.toml is written. Both are read by this test binary only.
func TestMain(m *testing.M) {
	testscript.Main(packageRun{m}, map[string]func(){
		"fledge": func() {
			if os.Getenv("FLEDGE_TEST_KILL_AFTER_LOG") != "" {
				grantlog.AfterAppend = func() {
					if p, err := os.FindProcess(os.Getpid()); err == nil {
						p.Kill()
					}
					select {}
				}
			}
			os.Exit(cli.MainWithSystemPolicy(os.Args[1:], cli.System(), "test", os.Getenv("FLEDGE_TEST_SYSTEM_POLICY")))
		},
	})
}

// TestScripts runs the end-to-end scripts in testdata/script, in parallel.
// Each runs fledge as a real process against its own FLEDGE_HOME, with
// fixture git repositories built by go-git (no git binary, no network).
//
// Scripts named *.txtar.pending pin behaviour that is known to be wrong
// (each says why); they run only with FLEDGE_PENDING=1, so CI stays green
// until the fix lands and the file is renamed to .txtar.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                "testdata/script",
		Setup:              scriptSetup,
		Cmds:               scriptCmds(),
		RequireUniqueNames: true,
	})
	if os.Getenv("FLEDGE_PENDING") != "" {
		pending, err := filepath.Glob("testdata/script/*.txtar.pending")
		if err != nil {
			t.Fatal(err)
		}
		if len(pending) == 0 {
			t.Log("FLEDGE_PENDING: no pending scripts")
			return
		}
		t.Run("pending", func(t *testing.T) {
			testscript.Run(t, testscript.Params{Files: pending, Setup: scriptSetup, Cmds: scriptCmds()})
		})
	}
}

func scriptSetup(env *testscript.Env) error {
	work := env.WorkDir
	home := filepath.Join(work, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	env.Setenv("HOME", home)
	// Hooks run confined: $WORK holds HOME and FLEDGE_HOME, so they may
	// not create files in it, but they may write the directories beside
	// them. Scripts have hooks leave their marks in $WORK/out. A hook
	// gets the base environment, which has no WORK: hooks name it
	// $FLEDGE_TEST_WORK (FLEDGE_* is in the base environment).
	if err := os.MkdirAll(filepath.Join(work, "out"), 0o755); err != nil {
		return err
	}
	env.Setenv("FLEDGE_TEST_WORK", work)
	env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	env.Setenv("FLEDGE_HOME", filepath.Join(work, "fh"))
	env.Setenv("NO_COLOR", "1")
	env.Setenv("FLEDGE_GITHUB_URL", "file://"+filepath.Join(work, "gh"))
	// Nothing may reach the network: point every remote at a closed port.
	env.Setenv("FLEDGE_GITHUB_API", "http://127.0.0.1:1")
	env.Setenv("FLEDGE_REGISTRY_URL", "http://127.0.0.1:1/index.json")
	env.Setenv("GITHUB_TOKEN", "")
	env.Setenv("GH_TOKEN", "")
	env.Setenv("FLEDGE_NON_INTERACTIVE", "")
	return nil
}

func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"mkrepo":      cmdMkrepo,
		"gitcommit":   cmdGitCommit,
		"gittag":      cmdGitTag,
		"gitbranch":   cmdGitBranch,
		"gitcheckout": cmdGitCheckout,
		"githead":     cmdGitHead,
		"jsonq":       cmdJSONQ,
		"emptydir":    cmdEmptyDir,
		"islink":      cmdIsLink,
		"waitfile":    cmdWaitFile,
		"signalpid":   cmdSignalPID,
		"pidgone":     cmdPIDGone,
		"runhint":     cmdRunHint,
		"mkwasm":      cmdMkwasm,
		"sshfp":       cmdSSHFingerprint,
	}
}

// fixtureSig signs fixture commits; the time advances per commit so the
// history is ordered and hashes are reproducible.
var fixtureEpoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func fixtureSig(n int) *object.Signature {
	return &object.Signature{Name: "Fixture", Email: "fixture@example.com", When: fixtureEpoch.Add(time.Duration(n) * time.Minute)}
}

// InitRepo makes dir a git repository on branch main with everything in
// it committed, and returns the commit.
func initRepo(dir string) (plumbing.Hash, error) {
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("init %s: %w", dir, err)
	}
	return commitAll(r, "initial")
}

func commitAll(r *git.Repository, msg string) (plumbing.Hash, error) {
	wt, err := r.Worktree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("add: %w", err)
	}
	n := 0
	if iter, err := r.Log(&git.LogOptions{}); err == nil {
		_ = iter.ForEach(func(*object.Commit) error { n++; return nil })
	}
	return wt.Commit(msg, &git.CommitOptions{Author: fixtureSig(n), Committer: fixtureSig(n), AllowEmptyCommits: true})
}

func openRepo(ts *testscript.TestScript, dir string) *git.Repository {
	r, err := git.PlainOpen(ts.MkAbs(dir))
	ts.Check(err)
	return r
}

func head(ts *testscript.TestScript, r *git.Repository) plumbing.Hash {
	h, err := r.Head()
	ts.Check(err)
	return h.Hash()
}

// mkrepo [-empty] DIR: git init DIR on branch main and commit everything in
// it (with -empty, commit nothing: a repository without commits).
func cmdMkrepo(ts *testscript.TestScript, neg bool, args []string) {
	empty := len(args) == 2 && args[0] == "-empty"
	if empty {
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkrepo [-empty] DIR")
	}
	if empty {
		_, err := git.PlainInitWithOptions(ts.MkAbs(args[0]), &git.PlainInitOptions{
			InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
		})
		ts.Check(err)
		return
	}
	_, err := initRepo(ts.MkAbs(args[0]))
	ts.Check(err)
}

// gitcommit DIR MSG: commit every change in DIR (additions and removals).
func cmdGitCommit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gitcommit DIR MSG")
	}
	_, err := commitAll(openRepo(ts, args[0]), args[1])
	ts.Check(err)
}

// gittag DIR TAG [-a | -at TIME]: tag HEAD, lightweight or (with -a) annotated;
// -at makes an annotated tag made at TIME (RFC 3339, or now).
func cmdGitTag(ts *testscript.TestScript, neg bool, args []string) {
	usage := "usage: gittag DIR TAG [-a | -at RFC3339|now]"
	if neg || len(args) < 2 || len(args) > 4 {
		ts.Fatalf("%s", usage)
	}
	r := openRepo(ts, args[0])
	var opts *git.CreateTagOptions
	switch {
	case len(args) == 3 && args[2] == "-a":
		opts = &git.CreateTagOptions{Tagger: fixtureSig(0), Message: "release " + args[1]}
	case len(args) == 4 && args[2] == "-at":
		// An annotated tag made at a given time: its tagger date is what
		// a policy's min_tag_age reads.
		when := time.Now()
		if args[3] != "now" {
			var err error
			when, err = time.Parse(time.RFC3339, args[3])
			ts.Check(err)
		}
		sig := fixtureSig(0)
		sig.When = when
		opts = &git.CreateTagOptions{Tagger: sig, Message: "release " + args[1]}
	case len(args) != 2:
		ts.Fatalf("%s", usage)
	}
	_, err := r.CreateTag(args[1], head(ts, r), opts)
	ts.Check(err)
}

// gitbranch DIR NAME: create branch NAME at HEAD (without switching to it).
func cmdGitBranch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gitbranch DIR NAME")
	}
	r := openRepo(ts, args[0])
	ts.Check(r.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(args[1]), head(ts, r))))
}

// gitcheckout DIR BRANCH: switch DIR's work tree to BRANCH.
func cmdGitCheckout(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gitcheckout DIR BRANCH")
	}
	wt, err := openRepo(ts, args[0]).Worktree()
	ts.Check(err)
	ts.Check(wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(args[1]), Force: true}))
}

// githead DIR VAR [N]: store DIR's HEAD commit in $VAR (full hex, or its
// first N digits).
func cmdGitHead(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: githead DIR VAR [N]")
	}
	h := head(ts, openRepo(ts, args[0])).String()
	if len(args) == 3 {
		n, err := strconv.Atoi(args[2])
		if err != nil || n < 1 || n > len(h) {
			ts.Fatalf("githead: bad length %q", args[2])
		}
		h = h[:n]
	}
	ts.Setenv(args[1], h)
}

// emptydir DIR: DIR does not exist or holds nothing.
func cmdEmptyDir(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: emptydir DIR")
	}
	entries, err := os.ReadDir(ts.MkAbs(args[0]))
	if err != nil && !os.IsNotExist(err) {
		ts.Fatalf("emptydir: %v", err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if empty := len(names) == 0; empty == neg {
		if neg {
			ts.Fatalf("%s is empty", args[0])
		}
		ts.Fatalf("%s is not empty: %s", args[0], strings.Join(names, ", "))
	}
}

// islink PATH: PATH is a symbolic link.
func cmdIsLink(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: islink PATH")
	}
	fi, err := os.Lstat(ts.MkAbs(args[0]))
	is := err == nil && fi.Mode()&os.ModeSymlink != 0
	if is == neg {
		if neg {
			ts.Fatalf("%s is a symlink", args[0])
		}
		ts.Fatalf("%s is not a symlink (%v)", args[0], err)
	}
}

// jsonq [-re] FILE PATH WANT: FILE (or stdout/stderr) holds exactly one JSON
// document whose value at PATH is WANT. Strings compare raw, anything else
// as compact JSON; -re matches WANT as a regexp. PATH is jq-like:
// .a.b[0].c, [name=x] picks the array element whose field name is x, and a
// final |length or |keys gives an array's or object's size or sorted keys.
// With !, a missing PATH passes too.
func cmdJSONQ(ts *testscript.TestScript, neg bool, args []string) {
	useRE := false
	if len(args) > 0 && args[0] == "-re" {
		useRE, args = true, args[1:]
	}
	if len(args) != 3 {
		ts.Fatalf("usage: jsonq [-re] FILE PATH WANT")
	}
	doc, err := decodeOneJSON(ts.ReadFile(args[0]))
	if err != nil {
		ts.Fatalf("jsonq: %s: %v", args[0], err)
	}
	got, err := jsonPath(doc, args[1])
	if err != nil {
		if neg {
			return
		}
		ts.Fatalf("jsonq %s %s: %v", args[0], args[1], err)
	}
	s := renderJSON(got)
	var ok bool
	if useRE {
		re, err := regexp.Compile(args[2])
		ts.Check(err)
		ok = re.MatchString(s)
	} else {
		ok = s == args[2]
	}
	if ok == neg {
		if neg {
			ts.Fatalf("jsonq %s %s: unexpectedly %s", args[0], args[1], s)
		}
		ts.Fatalf("jsonq %s %s:\n  got:  %s\n  want: %s", args[0], args[1], s, args[2])
	}
}

// decodeOneJSON decodes text that must be exactly one JSON document.
func decodeOneJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %v\n%s", err, text)
	}
	if rest := strings.TrimSpace(text[dec.InputOffset():]); rest != "" {
		return nil, fmt.Errorf("more than one JSON document; trailing: %.200q", rest)
	}
	return v, nil
}

var pathTokenRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\.([A-Za-z0-9_]+)|\[(-?[0-9]+)\]|\[([A-Za-z0-9_]+)=([^\]]*)\])`)
})

func jsonPath(v any, path string) (any, error) {
	path, op, _ := strings.Cut(path, "|")
	rest := path
	if rest == "." {
		rest = ""
	}
	for rest != "" {
		m := pathTokenRe().FindStringSubmatch(rest)
		if m == nil {
			return nil, fmt.Errorf("bad path at %q", rest)
		}
		rest = rest[len(m[0]):]
		switch {
		case m[1] != "":
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: not an object", m[0])
			}
			if v, ok = obj[m[1]]; !ok {
				return nil, fmt.Errorf("no field %q", m[1])
			}
		case m[2] != "":
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: not an array", m[0])
			}
			i, _ := strconv.Atoi(m[2])
			if i < 0 {
				i += len(arr)
			}
			if i < 0 || i >= len(arr) {
				return nil, fmt.Errorf("%s: index out of range (length %d)", m[0], len(arr))
			}
			v = arr[i]
		default:
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: not an array", m[0])
			}
			found := false
			for _, el := range arr {
				if obj, ok := el.(map[string]any); ok && renderJSON(obj[m[3]]) == m[4] {
					v, found = el, true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("no element with %s=%s", m[3], m[4])
			}
		}
	}
	switch strings.TrimSpace(op) {
	case "":
		return v, nil
	case "length":
		switch x := v.(type) {
		case []any:
			return len(x), nil
		case map[string]any:
			return len(x), nil
		case string:
			return len(x), nil
		}
		return nil, fmt.Errorf("length of %T", v)
	case "keys":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("keys of %T", v)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return strings.Join(keys, ","), nil
	}
	return nil, fmt.Errorf("unknown operator %q", op)
}

func renderJSON(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// scriptWait bounds every polling command.
const scriptWait = testutil.WaitLimit

// waitfile PATH: wait (bounded) until PATH exists.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	deadline := time.Now().Add(scriptWait)
	for {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not appear within %v", args[0], scriptWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPID(ts *testscript.TestScript, file string) int {
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(file)))
	if err != nil || pid <= 1 {
		ts.Fatalf("bad pid in %s: %v", file, err)
	}
	return pid
}

// sshfp PUBKEY VAR: set VAR to the SHA256:… fingerprint of the public key
// file PUBKEY, as ssh-keygen -l prints it.
func cmdSSHFingerprint(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sshfp PUBKEY VAR")
	}
	out, err := exec.Command("ssh-keygen", "-l", "-E", "sha256", "-f", ts.MkAbs(args[0])).Output()
	ts.Check(err)
	f := strings.Fields(string(out))
	if len(f) < 2 {
		ts.Fatalf("sshfp: ssh-keygen printed %q", out)
	}
	ts.Setenv(args[1], f[1])
}
