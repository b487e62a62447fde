// Package publishtest is a fake GitHub REST API for tests of publishing:
// a loopback server holding repositories whose clone URLs are bare git
// repositories on disk (file://), recording every call it answers.
package publishtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// API is the fake. Set Login before use; Override, when set, answers a
// request first (returning true when it did).
type API struct {
	URL string
	// Dir holds the bare repositories.
	Dir      string
	Login    string
	Override func(w http.ResponseWriter, r *http.Request) bool

	t      testing.TB
	dir    string
	mu     sync.Mutex
	repos  map[string]*Repo // "owner/name"
	calls  []string         // "METHOD path"
	auth   []string
	bodies map[string]map[string]any
}

// Repo is one repository the fake holds.
type Repo struct {
	Description string
	Private     bool
	Topics      []string
	// Bare is the bare repository its clone URL names.
	Bare string
}

// New starts a fake whose token's user is "octo".
func New(t testing.TB) *API {
	t.Helper()
	a := &API{Login: "octo", t: t, dir: t.TempDir(), repos: map[string]*Repo{}, bodies: map[string]map[string]any{}}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	a.URL, a.Dir = srv.URL, a.dir
	return a
}

// AddRepo makes owner/name exist, with an empty bare repository behind it.
func (a *API) AddRepo(owner, name string, r *Repo) *Repo {
	a.t.Helper()
	r.Bare = filepath.Join(a.dir, owner, name+".git")
	if _, err := git.PlainInitWithOptions(r.Bare, &git.PlainInitOptions{Bare: true,
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}}); err != nil {
		a.t.Fatal(err)
	}
	a.mu.Lock()
	a.repos[owner+"/"+name] = r
	a.mu.Unlock()
	return r
}

// Repo returns owner/name, or nil.
func (a *API) Repo(owner, name string) *Repo {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.repos[owner+"/"+name]
}

// Calls lists the requests answered, as "METHOD path", comma-separated.
func (a *API) Calls() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Join(a.calls, ", ")
}

// Auth lists the Authorization header of every request.
func (a *API) Auth() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.auth...)
}

// Body is the JSON body of the last "METHOD path" request.
func (a *API) Body(call string) map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bodies[call]
}

// Head is the commit a bare repository's main branch names ("" for none).
func Head(t testing.TB, bare string) string {
	t.Helper()
	r, err := git.PlainOpen(bare)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := r.Reference(plumbing.NewBranchReferenceName("main"), true)
	if err != nil {
		return ""
	}
	return ref.Hash().String()
}

func (a *API) repoJSON(owner, name string, r *Repo) map[string]any {
	return map[string]any{"name": name, "full_name": owner + "/" + name, "html_url": "https://github.example/" + owner + "/" + name,
		"clone_url": "file://" + filepath.ToSlash(r.Bare), "private": r.Private, "description": r.Description}
}

// ServeHTTP answers GET /user, POST /user/repos and /orgs/{org}/repos,
// GET and PATCH /repos/{o}/{r}, and GET and PUT /repos/{o}/{r}/topics.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.calls = append(a.calls, r.Method+" "+r.URL.Path)
	a.auth = append(a.auth, r.Header.Get("Authorization"))
	var body map[string]any
	if data, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20)); len(data) > 0 {
		_ = json.Unmarshal(data, &body)
		a.bodies[r.Method+" "+r.URL.Path] = body
	}
	override, login := a.Override, a.Login
	a.mu.Unlock()
	if override != nil && override(w, r) {
		return
	}
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == "GET" && r.URL.Path == "/user":
		reply(200, map[string]any{"login": login})
	case r.Method == "POST" && (r.URL.Path == "/user/repos" || len(parts) == 3 && parts[0] == "orgs" && parts[2] == "repos"):
		owner := login
		if parts[0] == "orgs" {
			owner = parts[1]
		}
		name, _ := body["name"].(string)
		desc, _ := body["description"].(string)
		priv, _ := body["private"].(bool)
		if a.Repo(owner, name) != nil {
			reply(422, map[string]any{"message": "name already exists on this account"})
			return
		}
		rp := a.AddRepo(owner, name, &Repo{Description: desc, Private: priv})
		reply(201, a.repoJSON(owner, name, rp))
	case len(parts) >= 3 && parts[0] == "repos":
		rp := a.Repo(parts[1], parts[2])
		if rp == nil {
			reply(404, map[string]any{"message": "Not Found"})
			return
		}
		switch {
		case len(parts) == 3 && r.Method == "GET":
			reply(200, a.repoJSON(parts[1], parts[2], rp))
		case len(parts) == 3 && r.Method == "PATCH":
			a.mu.Lock()
			rp.Description, _ = body["description"].(string)
			a.mu.Unlock()
			reply(200, a.repoJSON(parts[1], parts[2], rp))
		case len(parts) == 4 && parts[3] == "topics" && r.Method == "GET":
			a.mu.Lock()
			names := append([]string{}, rp.Topics...)
			a.mu.Unlock()
			reply(200, map[string]any{"names": names})
		case len(parts) == 4 && parts[3] == "topics" && r.Method == "PUT":
			var names []string
			list, _ := body["names"].([]any)
			for _, n := range list {
				s, _ := n.(string)
				names = append(names, s)
			}
			a.mu.Lock()
			rp.Topics = names
			a.mu.Unlock()
			reply(200, map[string]any{"names": names})
		default:
			reply(405, map[string]any{"message": "Method Not Allowed"})
		}
	default:
		reply(404, map[string]any{"message": "Not Found"})
	}
}
