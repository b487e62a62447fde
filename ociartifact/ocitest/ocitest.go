// Package ocitest runs a real OCI registry (distribution's, in-process) on
// loopback for tests. It is imported by tests only, so distribution stays
// out of the fledge binary (deps_test.go checks).
package ocitest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/handlers"
	"github.com/sirupsen/logrus"
	"golang.org/x/crypto/bcrypt"

	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
)

// Options choose the registry's setup.
type Options struct {
	// User and Password, when set, require basic auth (htpasswd).
	User, Password string
	// TLS serves HTTPS with a self-signed certificate that Registry.HTTP
	// trusts.
	TLS bool
	// Disk keeps blobs in a directory (Registry.Storage) instead of memory,
	// so a test can corrupt one.
	Disk bool
}

// Registry is a running registry.
type Registry struct {
	// Host is host:port on 127.0.0.1.
	Host string
	// HTTP is a client for it (trusting its certificate under TLS).
	HTTP *http.Client
	// Storage is the blob directory's root with Disk.
	Storage string
	// DockerConfig is a docker config.json holding the credentials, when
	// the registry requires them.
	DockerConfig string
	server       *httptest.Server
}

// Start runs a registry until the test ends.
func Start(t testing.TB, o Options) *Registry {
	t.Helper()
	logrus.SetOutput(io.Discard)
	dir := t.TempDir()
	cfg := &configuration.Configuration{Storage: configuration.Storage{
		"maintenance": configuration.Parameters{"uploadpurging": map[any]any{"enabled": false}},
	}}
	r := &Registry{}
	if o.Disk {
		r.Storage = filepath.Join(dir, "storage")
		cfg.Storage["filesystem"] = configuration.Parameters{"rootdirectory": r.Storage}
	} else {
		cfg.Storage["inmemory"] = nil
	}
	if o.User != "" {
		hash, err := bcrypt.GenerateFromPassword([]byte(o.Password), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		pw := filepath.Join(dir, "htpasswd")
		if err := os.WriteFile(pw, []byte(o.User+":"+string(hash)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg.Auth = configuration.Auth{"htpasswd": configuration.Parameters{"realm": "fledge-test", "path": pw}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	app := handlers.NewApp(ctx, cfg)
	r.server = httptest.NewUnstartedServer(app)
	// Tests that use an untrusted client make the server log handshakes.
	r.server.Config.ErrorLog = log.New(io.Discard, "", 0)
	if o.TLS {
		r.server.StartTLS()
		r.HTTP = r.server.Client()
	} else {
		r.server.Start()
		r.HTTP = &http.Client{}
	}
	t.Cleanup(func() { r.server.Close(); cancel() })
	r.Host = strings.TrimPrefix(strings.TrimPrefix(r.server.URL, "https://"), "http://")
	r.DockerConfig = filepath.Join(dir, "docker", "config.json")
	auths := map[string]any{}
	if o.User != "" {
		auths[r.Host] = map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(o.User + ":" + o.Password))}
	}
	data, _ := json.Marshal(map[string]any{"auths": auths})
	if err := os.MkdirAll(filepath.Dir(r.DockerConfig), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.DockerConfig, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

// Stop stops the registry (to test a registry that is down).
func (r *Registry) Stop() { r.server.Close() }

// BlobPath is where a disk registry keeps the blob with digest d
// ("sha256:…").
func (r *Registry) BlobPath(d string) string {
	alg, hex, _ := strings.Cut(d, ":")
	return filepath.Join(r.Storage, "docker", "registry", "v2", "blobs", alg, hex[:2], hex, "data")
}

// String is the registry's oci:// base.
func (r *Registry) String() string { return fmt.Sprintf("oci://%s", r.Host) }
