package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A revocation list served over https (a loopback server whose
// self-signed certificate the test trusts) stops a plugin from running
// once fetched, with its reason and issuer in the refusal, list, info and
// audit; the cache is used offline when the server is gone, and with no
// copy at all every plugin is refused (on_error "closed" by default). A
// list named by file revokes one commit at install.
func TestRevocationListOverHTTPSThenOffline(t *testing.T) {
	t.Parallel()
	var (
		mu    sync.Mutex
		body  = "# nothing revoked yet\n"
		asked int
	)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		asked++
		w.Write([]byte(body))
	}))
	listURL := srv.URL + "/revoked.toml"

	f := newE2EFixture(t)
	gh := strings.TrimPrefix(f.env["FLEDGE_GITHUB_URL"], "file://")
	x := newE2ERepo(t, filepath.Join(gh, "acme", "fledge-plugin-x"))
	x.commit(t, e2ePluginToml("x", "1.0.0"), "v1.0.0")
	y := newE2ERepo(t, filepath.Join(gh, "acme", "fledge-plugin-y"))
	yCommit := y.commit(t, e2ePluginToml("y", "1.0.0"), "v1.0.0")

	dir := t.TempDir()
	file := filepath.Join(dir, "revoked.toml")
	os.WriteFile(file, []byte("[[revoked]]\nsource = \"file://"+gh+"/acme/fledge-plugin-y\"\ncommit = \""+yCommit+"\"\nreason = \"leaks the store\"\nissuer = \"fleet-admins\"\ndate = \"2026-11-01\"\n"), 0o644)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte("[revocation]\nfiles = [\""+file+"\"]\nurls = [\""+listURL+"\"]\nttl = \"1h\"\n"), 0o644)
	f.env["FLEDGE_POLICY"] = pol

	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) func(*Factory) {
		return func(fac *Factory) {
			fac.HTTPClient = srv.Client()
			fac.Now = func() time.Time { return now.Add(d) }
		}
	}
	ok := func(d time.Duration, args ...string) string {
		t.Helper()
		code, out, errOut := f.fledgeWith(at(d), args...)
		if code != 0 {
			t.Fatalf("fledge %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
		}
		return out + errOut
	}

	ok(0, "plugins", "install", "acme/fledge-plugin-x", "--yes")
	if asked != 1 {
		t.Fatalf("the list was asked for %d times, want once", asked)
	}
	code, out, _ := f.fledgeWith(at(0), "plugins", "install", "acme/fledge-plugin-y", "--yes", "--json")
	if code != ExitFailure || !strings.Contains(out, "revoked by fleet-admins on 2026-11-01: leaks the store") || !strings.Contains(out, file) {
		t.Fatalf("install of a commit the file revokes: exit %d\n%s", code, out)
	}

	mu.Lock()
	body = "[[revoked]]\nsource = \"" + strings.TrimPrefix(f.env["FLEDGE_GITHUB_URL"], "file://") + "/acme/fledge-plugin-x\"\nreason = \"compromised maintainer account\"\nissuer = \"security@corvid.example\"\ndate = \"2026-11-27\"\n"
	mu.Unlock()
	// Within the ttl the cached list stands, and a run never fetches.
	ok(30*time.Minute, "plugins", "audit")
	ok(3*time.Hour, "x")
	if asked != 1 {
		t.Fatalf("the list was fetched within its ttl, or by a run: %d requests", asked)
	}
	// Past it, audit fetches it, and the plugin stops.
	ok(2*time.Hour, "plugins", "audit")
	if asked != 2 {
		t.Fatalf("the list was not fetched again past its ttl: %d requests", asked)
	}
	const why = "revoked by security@corvid.example on 2026-11-27: compromised maintainer account"
	check := func(when string, d time.Duration) {
		t.Helper()
		code, out, errOut := f.fledgeWith(at(d), "plugins", "run", "x", "--json")
		if code == 0 || !strings.Contains(out, `"policy_denied"`) || !strings.Contains(out, why) {
			t.Errorf("%s: run: exit %d\n%s\n%s", when, code, out, errOut)
		}
		for _, args := range [][]string{{"plugins", "list", "--json"}, {"plugins", "audit", "--json"}, {"plugins", "info", "x", "--json"}} {
			_, out, _ := f.fledgeWith(at(d), args...)
			var v struct {
				Plugins []struct{ Revoked *revokedJSON } `json:"plugins"`
				Audit   []struct{ Revoked *revokedJSON } `json:"audit"`
				Plugin  struct{ Revoked *revokedJSON }   `json:"plugin"`
			}
			json.Unmarshal([]byte(out), &v)
			r := v.Plugin.Revoked
			if len(v.Plugins) > 0 {
				r = v.Plugins[0].Revoked
			} else if len(v.Audit) > 0 {
				r = v.Audit[0].Revoked
			}
			if r == nil || r.Issuer != "security@corvid.example" || r.Reason != "compromised maintainer account" || r.List != listURL {
				t.Errorf("%s: %s: revoked %+v\n%s", when, args, r, out)
			}
		}
	}
	check("fetched", 2*time.Hour)
	var pd policyDoc
	if _, out, _ := f.fledgeWith(at(2*time.Hour), "plugins", "policy", "--json"); json.Unmarshal([]byte(out), &pd) != nil ||
		len(pd.Revocation.Lists) != 2 || pd.Revocation.Lists[1].TTL != "1h" || pd.Revocation.Lists[1].OnError != "closed" || len(pd.Revocation.Revoked) != 2 {
		t.Errorf("policy --json does not show the lists and their entries: %s", out)
	}

	// Offline: the server is gone; the cache answers, with a warning.
	srv.Close()
	check("offline", 5*time.Hour)
	if out := ok(5*time.Hour, "plugins", "policy"); !strings.Contains(out, "using the copy fetched at 2026-11-27T14:00:00Z") {
		t.Errorf("policy offline does not say the cached copy is used:\n%s", out)
	}

	// No copy at all: closed by default, and audit says why.
	os.RemoveAll(filepath.Join(f.env["FLEDGE_HOME"], "cache"))
	code, out, errOut := f.fledgeWith(at(6*time.Hour), "plugins", "run", "x", "--json")
	if code == 0 || !strings.Contains(out, "[revocation] on_error") || !strings.Contains(out, "has not been fetched") {
		t.Errorf("no copy: run: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = f.fledgeWith(at(6*time.Hour), "plugins", "audit", "--json", "--strict")
	var a auditDoc
	if json.Unmarshal([]byte(out), &a); code != ExitFailure || len(a.RevocationErrors) != 1 || !strings.Contains(a.RevocationErrors[0], "closed") {
		t.Errorf("no copy: audit --strict: exit %d\n%s", code, out)
	}
}
