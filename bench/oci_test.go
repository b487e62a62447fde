//go:build bench

package bench

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/ociartifact/ocitest"
)

// The hello example as a release would ship it: its binary built, no
// build hook. The same tree is a file:// git repository and an artifact in
// a registry on loopback (distribution's, in this process).
type helloFixture struct {
	tree, gitURL, ociRef string
	reg                  *ocitest.Registry
	oras                 string // the oras CLI, "" when it could not be built
	orasErr              error
}

var (
	helloOnce sync.Once
	hello     *helloFixture
)

// helloSetup builds the fixture once for all OCI benchmarks.
func helloSetup(b *testing.B) *helloFixture {
	helloOnce.Do(func() {
		h := &helloFixture{}
		root := filepath.Join(tmpRoot, "hello")
		h.tree = filepath.Join(root, "tree")
		if err := os.MkdirAll(filepath.Join(h.tree, "bin"), 0o755); err != nil {
			b.Fatal(err)
		}
		build := exec.Command("go", append([]string{"build"}, append(releaseFlags, "-o", filepath.Join(h.tree, "bin", "fledge-hello"), "../examples/fledge-plugin-hello")...)...)
		build.Env, build.Stderr = append(os.Environ(), "CGO_ENABLED=0"), os.Stderr
		if err := build.Run(); err != nil {
			b.Fatal(err)
		}
		data, err := os.ReadFile("../examples/fledge-plugin-hello/plugin.toml")
		if err != nil {
			b.Fatal(err)
		}
		m := string(data)
		if i := strings.Index(m, "[hooks]"); i >= 0 {
			j := strings.Index(m[i:], "\n[capabilities]")
			m = m[:i] + m[i+j+1:]
		}
		if err := os.WriteFile(filepath.Join(h.tree, "plugin.toml"), []byte(m), 0o644); err != nil {
			b.Fatal(err)
		}
		h.gitURL = "file://" + gitRepoOf(b, h.tree, filepath.Join(root, "repo"))
		h.reg = ocitest.Start(&keepAlive{b}, ocitest.Options{})
		r := &ociartifact.Remote{HTTP: h.reg.HTTP}
		target, err := r.Repository(context.Background(), h.reg.Host, "fledge/fledge-plugin-hello")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ociartifact.Push(context.Background(), target, h.tree, ociartifact.Info{Name: "fledge-plugin-hello", Version: "0.1.0"}, []string{"0.1.0"}, ociartifact.Limits{}); err != nil {
			b.Fatal(err)
		}
		h.ociRef = h.reg.Host + "/fledge/fledge-plugin-hello:0.1.0"
		// The oras CLI, from the Go module proxy.
		gobin := filepath.Join(root, "gobin")
		inst := exec.Command("go", "install", "oras.land/oras/cmd/oras@v1.3.6")
		inst.Env = append(os.Environ(), "GOBIN="+gobin, "CGO_ENABLED=0")
		if out, err := inst.CombinedOutput(); err != nil {
			h.orasErr = fmt.Errorf("go install oras: %v\n%s", err, out)
		} else {
			h.oras = filepath.Join(gobin, "oras")
		}
		hello = h
	})
	if hello == nil {
		b.Fatal("hello fixture failed")
	}
	return hello
}

// keepAlive is a testing.TB whose cleanups never run: the fixture's
// registry serves every benchmark of the run (the process exits after).
type keepAlive struct{ testing.TB }

func (keepAlive) Cleanup(func()) {}
func (k keepAlive) TempDir() string {
	d, err := os.MkdirTemp(tmpRoot, "reg")
	if err != nil {
		k.Fatal(err)
	}
	return d
}

// gitRepoOf commits tree's files into a new repository at dir.
func gitRepoOf(b *testing.B, tree, dir string) string {
	b.Helper()
	if out, err := exec.Command("cp", "-r", tree, dir).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v %s", err, out)
	}
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		b.Fatal(err)
	}
	wt, _ := repo.Worktree()
	if err := wt.AddGlob("."); err != nil {
		b.Fatal(err)
	}
	sig := &object.Signature{Name: "bench", Email: "bench@example.com", When: time.Unix(1700000000, 0)}
	if _, err := wt.Commit("hello", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkOCIHello installs the hello example, in turn (so the machine's
// drift hits all alike), from the loopback registry and from a file://
// git repository into empty FLEDGE_HOMEs, and pulls the same artifact with
// the oras CLI (it saves the layer as fledge-plugin-hello.tar.gz) and
// tar -xzf (the files on disk, nothing checked, approved or recorded), and
// with oras-go in this process (copy to memory, untar: a floor without a
// process start). It reports each as ms/registry, ms/git, ms/oras-pull and
// ms/oras-go.
func BenchmarkOCIHello(b *testing.B) {
	h := helloSetup(b)
	e := newEnv(b)
	repo, err := remote.NewRepository(strings.TrimSuffix(h.ociRef, ":0.1.0"))
	if err != nil {
		b.Fatal(err)
	}
	repo.PlainHTTP, repo.Client = true, &auth.Client{Client: h.reg.HTTP}
	install := func(i int, src string) time.Duration {
		c := e.cmd(fledgeBin, "plugins", "install", src, "--grant", "exec,store,metadata")
		c.Env = append(c.Env, "FLEDGE_HOME="+filepath.Join(e.root, "homes", strconv.Itoa(i)))
		t := time.Now()
		run(b, c)
		return time.Since(t)
	}
	var reg, git, pull, orasGo time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		reg += install(3*i, "oci://"+h.ociRef)
		git += install(3*i+1, h.gitURL)
		if h.oras != "" {
			dir := filepath.Join(e.root, "pulls", strconv.Itoa(i))
			t := time.Now()
			run(b, e.cmd(h.oras, "pull", "--plain-http", "-o", dir, h.ociRef))
			tree := filepath.Join(dir, "tree")
			os.Mkdir(tree, 0o755)
			run(b, e.cmd("tar", "-xzf", filepath.Join(dir, "fledge-plugin-hello.tar.gz"), "-C", tree))
			pull += time.Since(t)
		}
		t := time.Now()
		mem := memory.New()
		desc, err := oras.Copy(context.Background(), repo, "0.1.0", mem, "", oras.DefaultCopyOptions)
		if err != nil {
			b.Fatal(err)
		}
		untarLayer(b, mem, desc, filepath.Join(e.root, "orasgo", strconv.Itoa(i)))
		orasGo += time.Since(t)
	}
	n := float64(b.N)
	b.ReportMetric(float64(reg.Microseconds())/1e3/n, "ms/registry")
	b.ReportMetric(float64(git.Microseconds())/1e3/n, "ms/git")
	if h.oras != "" {
		b.ReportMetric(float64(pull.Microseconds())/1e3/n, "ms/oras-pull")
	} else {
		b.Log(h.orasErr)
	}
	b.ReportMetric(float64(orasGo.Microseconds())/1e3/n, "ms/oras-go")
}

func untarLayer(b *testing.B, mem *memory.Store, desc ocispec.Descriptor, dir string) {
	data, err := content.FetchAll(context.Background(), mem, desc)
	if err != nil {
		b.Fatal(err)
	}
	m, err := mem.Fetch(context.Background(), desc)
	if err != nil {
		b.Fatal(err)
	}
	m.Close()
	var man ocispec.Manifest
	if err := json.Unmarshal(data, &man); err != nil {
		b.Fatal(err)
	}
	rc, err := mem.Fetch(context.Background(), man.Layers[0])
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close()
	zr, err := gzip.NewReader(rc)
	if err != nil {
		b.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, hd.Name)
		if hd.Typeflag == tar.TypeDir {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, os.FileMode(hd.Mode))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(f, tr)
		f.Close()
	}
}

// fifty is 50 plugins installed from file:// repositories into one
// FLEDGE_HOME, and each one's tree as a .tar.gz for oras push.
var (
	fiftyOnce sync.Once
	fiftyEnv  *env
	fiftyTars []string
)

func fiftySetup(b *testing.B) *env {
	fiftyOnce.Do(func() {
		// Not newEnv: the installs outlive the benchmark's first run,
		// whose TempDir is removed after it.
		root, err := os.MkdirTemp(tmpRoot, "fifty")
		if err != nil {
			b.Fatal(err)
		}
		paths, err := home.New(filepath.Join(root, "fledge"))
		if err != nil {
			b.Fatal(err)
		}
		os.MkdirAll(filepath.Join(root, "home"), 0o755)
		e := &env{root: root, paths: paths, vars: []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(root, "home"), "FLEDGE_HOME=" + paths.Root(),
			"LANG=C", "NO_COLOR=1", "GIT_CONFIG_NOSYSTEM=1",
		}}
		for i := 0; i < 50; i++ {
			name := fmt.Sprintf("fledge-plugin-m%02d", i)
			url := pluginRepo(b, filepath.Join(e.root, "repos", name), name, 1)
			run(b, e.cmd(fledgeBin, "plugins", "install", url, "--yes"))
			tgz := filepath.Join(e.root, "tars", name+".tar.gz")
			os.MkdirAll(filepath.Dir(tgz), 0o755)
			run(b, e.cmd("tar", "-czf", tgz, "-C", e.paths.PluginDir(name), "."))
			fiftyTars = append(fiftyTars, tgz)
		}
		fiftyEnv = e
	})
	return fiftyEnv
}

// BenchmarkOCIMirror50 pushes the 50 installed plugins, in turn, with
// fledge plugins mirror and with oras push of the same trees as tarballs
// (one oras process each, as a script would), each to a new prefix of the
// loopback registry (every blob new). It reports ms/mirror and
// ms/oras-push.
func BenchmarkOCIMirror50(b *testing.B) {
	h := helloSetup(b)
	if h.oras == "" {
		b.Skip(h.orasErr)
	}
	e := fiftySetup(b)
	var mirror, push time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		run(b, e.cmd(fledgeBin, "plugins", "mirror", "--to", fmt.Sprintf("oci://%s/fledge-%d-%d", h.reg.Host, time.Now().UnixNano(), i)))
		mirror += time.Since(t)
		prefix := fmt.Sprintf("%s/oras-%d-%d", h.reg.Host, time.Now().UnixNano(), i)
		t = time.Now()
		for _, tgz := range fiftyTars {
			name := strings.TrimSuffix(filepath.Base(tgz), ".tar.gz")
			c := e.cmd(h.oras, "push", "--plain-http", "--artifact-type", ociartifact.ArtifactType, prefix+"/"+name+":0.1.0", filepath.Base(tgz)+":"+ociartifact.LayerMediaType)
			c.Dir = filepath.Dir(tgz)
			run(b, c)
		}
		push += time.Since(t)
	}
	b.ReportMetric(float64(mirror.Microseconds())/1e3/float64(b.N), "ms/mirror")
	b.ReportMetric(float64(push.Microseconds())/1e3/float64(b.N), "ms/oras-push")
}
