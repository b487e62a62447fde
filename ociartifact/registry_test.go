package ociartifact_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/ociartifact/ocitest"
	"github.com/corvidlabs/fledge-go/treehash"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(name, "bin/") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func hashOf(t *testing.T, dir string) string {
	t.Helper()
	h, err := treehash.Hash(dir, treehash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h.Hash
}

var helloTree = map[string]string{
	"plugin.toml": "[plugin]\nname = \"hello\"\nversion = \"1.0.0\"\n",
	"bin/hello":   "#!/bin/sh\necho hello\n",
	"README.md":   "hello\n",
}

func repo(t *testing.T, reg *ocitest.Registry, name string, r *ociartifact.Remote) *remote.Repository {
	t.Helper()
	if r == nil {
		r = &ociartifact.Remote{HTTP: reg.HTTP, DockerConfig: reg.DockerConfig}
	}
	repo, err := r.Repository(context.Background(), reg.Host, name)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// What fledge pushes is plain OCI: oras-go's own copy, with none of
// fledge's code, reads the manifest, its annotations and the tar layer.
func TestPushedArtifactIsPlainOCI(t *testing.T) {
	ctx := context.Background()
	reg := ocitest.Start(t, ocitest.Options{})
	dir := writeTree(t, helloTree)
	info := ociartifact.Info{Name: "hello", Version: "1.0.0", Source: "https://github.com/CorvidLabs/hello", Commit: strings.Repeat("a", 40)}
	desc, err := ociartifact.Push(ctx, repo(t, reg, "fledge/hello", nil), dir, info, []string{"1.0.0", info.Commit}, ociartifact.Limits{})
	if err != nil {
		t.Fatal(err)
	}

	plain, err := remote.NewRepository(reg.Host + "/fledge/hello")
	if err != nil {
		t.Fatal(err)
	}
	plain.PlainHTTP, plain.Client = true, &auth.Client{Client: reg.HTTP}
	mem := memory.New()
	got, err := oras.Copy(ctx, plain, "1.0.0", mem, "1.0.0", oras.DefaultCopyOptions)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest != desc.Digest {
		t.Fatalf("oras copied %s, fledge pushed %s", got.Digest, desc.Digest)
	}
	data, err := content.FetchAll(ctx, mem, got)
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.ArtifactType != ociartifact.ArtifactType || len(m.Layers) != 1 || m.Layers[0].MediaType != ociartifact.LayerMediaType {
		t.Fatalf("manifest: %s", data)
	}
	want := map[string]string{
		ocispec.AnnotationTitle: "hello", ocispec.AnnotationVersion: "1.0.0",
		ocispec.AnnotationSource: info.Source, ocispec.AnnotationRevision: info.Commit,
		ociartifact.AnnotationTreeHash: hashOf(t, dir),
	}
	for k, v := range want {
		if m.Annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, m.Annotations[k], v)
		}
	}
	layer, err := content.FetchAll(ctx, mem, m.Layers[0])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(layer))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	seen := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			b, _ := io.ReadAll(tr)
			seen[h.Name] = string(b)
			if h.Name == "bin/hello" && h.Mode != 0o755 {
				t.Errorf("bin/hello has mode %o in the layer", h.Mode)
			}
		}
	}
	for name, body := range helloTree {
		if seen[name] != body {
			t.Errorf("layer holds %s = %q, want %q", name, seen[name], body)
		}
	}
	// The commit tag names the same manifest.
	if d, err := plain.Resolve(ctx, info.Commit); err != nil || d.Digest != desc.Digest {
		t.Fatalf("commit tag: %v %v", d.Digest, err)
	}
	// And fledge pulls back the same tree.
	out := filepath.Join(t.TempDir(), "tree")
	p, err := ociartifact.Pull(ctx, repo(t, reg, "fledge/hello", nil), "1.0.0", out, ociartifact.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if hashOf(t, out) != hashOf(t, dir) || p.Info.TreeHash != hashOf(t, dir) || p.Digest != desc.Digest.String() {
		t.Fatalf("pulled %+v, tree %s, want %s", p, hashOf(t, out), hashOf(t, dir))
	}
	// Pushing the same tree again makes the same manifest.
	again, err := ociartifact.Push(ctx, repo(t, reg, "fledge/hello", nil), dir, info, nil, ociartifact.Limits{})
	if err != nil || again.Digest != desc.Digest {
		t.Fatalf("second push %s (%v), first %s", again.Digest, err, desc.Digest)
	}
}

func TestBasicAuthOverTLS(t *testing.T) {
	ctx := context.Background()
	reg := ocitest.Start(t, ocitest.Options{TLS: true, User: "ci", Password: "s3cret"})
	dir := writeTree(t, helloTree)
	if _, err := ociartifact.Push(ctx, repo(t, reg, "p/hello", nil), dir, ociartifact.Info{Name: "hello", Version: "1.0.0"}, []string{"1.0.0"}, ociartifact.Limits{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "tree")
	if _, err := ociartifact.Pull(ctx, repo(t, reg, "p/hello", nil), "1.0.0", out, ociartifact.Limits{}); err != nil {
		t.Fatal(err)
	}
	// Without the credentials the registry refuses.
	empty := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(empty, []byte(`{"auths":{}}`), 0o600)
	noCreds := &ociartifact.Remote{HTTP: reg.HTTP, DockerConfig: empty}
	_, err := ociartifact.Pull(ctx, repo(t, reg, "p/hello", noCreds), "1.0.0", filepath.Join(t.TempDir(), "x"), ociartifact.Limits{})
	if err == nil || !strings.Contains(err.Error(), "credential") {
		t.Fatalf("pull without credentials: %v", err)
	}
	// A client that does not trust the certificate fails the handshake
	// rather than falling back to plain http.
	untrusted := &ociartifact.Remote{DockerConfig: reg.DockerConfig}
	_, err = ociartifact.Pull(ctx, repo(t, reg, "p/hello", untrusted), "1.0.0", filepath.Join(t.TempDir(), "y"), ociartifact.Limits{})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("pull with an untrusted certificate: %v", err)
	}
}

func TestTagMovedDigestPinned(t *testing.T) {
	ctx := context.Background()
	reg := ocitest.Start(t, ocitest.Options{})
	r := repo(t, reg, "p/hello", nil)
	a := writeTree(t, helloTree)
	b := writeTree(t, map[string]string{"plugin.toml": helloTree["plugin.toml"], "bin/hello": "#!/bin/sh\necho moved\n"})
	da, err := ociartifact.Push(ctx, r, a, ociartifact.Info{Name: "hello", Version: "1.0.0"}, []string{"1.0.0"}, ociartifact.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	db, err := ociartifact.Push(ctx, r, b, ociartifact.Info{Name: "hello", Version: "1.0.0"}, []string{"1.0.0"}, ociartifact.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	now, err := ociartifact.Resolve(ctx, r, "1.0.0", ociartifact.Limits{})
	if err != nil || now.Digest != db.Digest.String() {
		t.Fatalf("tag resolves to %v (%v), want the moved %s", now, err, db.Digest)
	}
	out := filepath.Join(t.TempDir(), "tree")
	p, err := ociartifact.Pull(ctx, r, da.Digest.String(), out, ociartifact.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Digest != da.Digest.String() || hashOf(t, out) != hashOf(t, a) {
		t.Fatalf("digest pin pulled %s (tree %s), want %s (tree %s)", p.Digest, hashOf(t, out), da.Digest, hashOf(t, a))
	}
}

func TestCorruptBlobRefused(t *testing.T) {
	ctx := context.Background()
	reg := ocitest.Start(t, ocitest.Options{Disk: true})
	r := repo(t, reg, "p/hello", nil)
	dir := writeTree(t, helloTree)
	desc, err := ociartifact.Push(ctx, r, dir, ociartifact.Info{Name: "hello", Version: "1.0.0"}, []string{"1.0.0"}, ociartifact.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := content.FetchAll(ctx, r, desc)
	var m ocispec.Manifest
	json.Unmarshal(data, &m)
	// Same size, other bytes: a valid gzipped tar of another tree would be
	// refused the same way.
	other := writeTree(t, map[string]string{"plugin.toml": helloTree["plugin.toml"], "bin/hello": "#!/bin/sh\necho HELLO\n", "README.md": "hello\n"})
	od, err := ociartifact.Push(ctx, r, other, ociartifact.Info{Name: "hello", Version: "1.0.0"}, nil, ociartifact.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	odata, _ := content.FetchAll(ctx, r, od)
	var om ocispec.Manifest
	json.Unmarshal(odata, &om)
	evil, err := os.ReadFile(reg.BlobPath(om.Layers[0].Digest.String()))
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(evil)) != m.Layers[0].Size {
		evil = append(evil[:0:0], evil...)
		for int64(len(evil)) < m.Layers[0].Size {
			evil = append(evil, 0)
		}
		evil = evil[:m.Layers[0].Size]
	}
	if err := os.WriteFile(reg.BlobPath(m.Layers[0].Digest.String()), evil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ociartifact.Pull(ctx, r, "1.0.0", filepath.Join(t.TempDir(), "tree"), ociartifact.Limits{})
	if !errors.Is(err, ociartifact.ErrBadLayer) || !strings.Contains(err.Error(), "digest") {
		t.Fatalf("corrupt layer: %v", err)
	}
}

func TestRegistryDown(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{})
	r := repo(t, reg, "p/hello", nil)
	reg.Stop()
	out := filepath.Join(t.TempDir(), "tree")
	_, err := ociartifact.Pull(context.Background(), r, "1.0.0", out, ociartifact.Limits{})
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("registry down: %v", err)
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Fatalf("a failed pull left %s", out)
	}
}

func TestHugeLayerBounded(t *testing.T) {
	ctx := context.Background()
	reg := ocitest.Start(t, ocitest.Options{})
	r := repo(t, reg, "p/big", nil)
	// 4 MiB of zeros: a few KiB compressed, so only the unpacked size can
	// catch it (a gzip bomb in small).
	dir := writeTree(t, map[string]string{"plugin.toml": helloTree["plugin.toml"], "blob": strings.Repeat("\x00", 4<<20)})
	if _, err := ociartifact.Push(ctx, r, dir, ociartifact.Info{Name: "big", Version: "1.0.0"}, []string{"1"}, ociartifact.Limits{}); err != nil {
		t.Fatal(err)
	}
	lim := ociartifact.Limits{MaxTreeBytes: 1 << 20}
	_, err := ociartifact.Pull(ctx, r, "1", filepath.Join(t.TempDir(), "tree"), lim)
	var tl *gitfetch.TooLargeError
	if !errors.As(err, &tl) || tl.What != "size" {
		t.Fatalf("huge tree: %v", err)
	}
	// A layer that declares more than the bound is not fetched at all.
	noise := make([]byte, 3<<20)
	rand.NewChaCha8([32]byte{1}).Read(noise)
	dir2 := writeTree(t, map[string]string{"plugin.toml": helloTree["plugin.toml"], "blob": string(noise)})
	if _, err := ociartifact.Push(ctx, r, dir2, ociartifact.Info{Name: "big", Version: "2.0.0"}, []string{"2"}, ociartifact.Limits{}); err != nil {
		t.Fatal(err)
	}
	_, err = ociartifact.Pull(ctx, r, "2", filepath.Join(t.TempDir(), "tree2"), lim)
	if !errors.As(err, &tl) || tl.What != "download" {
		t.Fatalf("huge layer: %v", err)
	}
	// A manifest larger than the bound is not read.
	_, err = ociartifact.Pull(ctx, r, "2", filepath.Join(t.TempDir(), "tree3"), ociartifact.Limits{MaxManifestBytes: 100})
	if !errors.Is(err, ociartifact.ErrNotPlugin) || !strings.Contains(err.Error(), "more than the 100") {
		t.Fatalf("huge manifest: %v", err)
	}
}
