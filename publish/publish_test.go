package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/corvidlabs/fledge-go/publish/publishtest"
	"github.com/corvidlabs/fledge-go/registry"
)

const token = "ghp_PUBLISHSECRET0123456789"

var testAuthor = &object.Signature{Name: "Pub", Email: "pub@example.com", When: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}

func pluginDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fledge-plugin-x")
	for p, body := range map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-x\"\nversion = \"0.1.0\"\n",
		"bin/x":       "#!/bin/sh\necho x\n",
		".gitignore":  "secret.txt\n",
		"secret.txt":  "do not publish\n",
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func opts(f *publishtest.API) Options {
	return Options{API: f.URL, Token: token, Timeout: 10 * time.Second}
}

func TestPublishCreatesAndPushes(t *testing.T) {
	t.Parallel()
	f := publishtest.New(t)
	dir := pluginDir(t)
	var log bytes.Buffer
	res, err := Publish(context.Background(), opts(f), Request{Dir: dir, Name: "fledge-plugin-x", Description: "Does x",
		CommitMessage: "Publish fledge plugin", Author: testAuthor, Log: &log})
	if err != nil {
		t.Fatalf("%v\ncalls: %s", err, f.Calls())
	}
	if want := "GET /user, GET /repos/octo/fledge-plugin-x, POST /user/repos, GET /repos/octo/fledge-plugin-x/topics, PUT /repos/octo/fledge-plugin-x/topics"; f.Calls() != want {
		t.Errorf("calls:\n  %s\nwant\n  %s", f.Calls(), want)
	}
	for _, a := range f.Auth() {
		if a != "Bearer "+token {
			t.Errorf("Authorization = %q", a)
		}
	}
	if b := f.Body("POST /user/repos"); b["name"] != "fledge-plugin-x" || b["description"] != "Does x" || b["private"] != false || b["auto_init"] != false {
		t.Errorf("create body = %v", b)
	}
	rp := f.Repo("octo", "fledge-plugin-x")
	if strings.Join(rp.Topics, ",") != "fledge-plugin" {
		t.Errorf("topics = %v", rp.Topics)
	}
	if !res.Created || res.Owner != "octo" || res.URL != "https://github.example/octo/fledge-plugin-x" || res.Branch != "main" || !res.Committed || res.UpToDate {
		t.Errorf("result = %+v", res)
	}
	if got := publishtest.Head(t, rp.Bare); got != res.Commit {
		t.Fatalf("remote main = %q, pushed %q", got, res.Commit)
	}
	// What was pushed: the plugin, without what .gitignore excludes.
	r, _ := git.PlainOpen(rp.Bare)
	c, err := r.CommitObject(plumbing.NewHash(res.Commit))
	if err != nil {
		t.Fatal(err)
	}
	if c.Message != "Publish fledge plugin" || c.Author.Email != "pub@example.com" {
		t.Errorf("commit %q by %s", c.Message, c.Author.Email)
	}
	tree, _ := c.Tree()
	if _, err := tree.File("plugin.toml"); err != nil {
		t.Error("plugin.toml was not pushed")
	}
	if _, err := tree.File("secret.txt"); err == nil {
		t.Error("a file .gitignore excludes was pushed")
	}
	// The directory is now a repository whose origin is the new one.
	local, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := local.Remote("origin"); err != nil || o.Config().URLs[0] != res.CloneURL {
		t.Errorf("origin = %v, %v", o, err)
	}
	if !strings.Contains(log.String(), "Created repository octo/fledge-plugin-x") {
		t.Errorf("log = %q", log.String())
	}

	// Again with nothing new: no commit, nothing to push, the topic stays.
	res, err = Publish(context.Background(), opts(f), Request{Dir: dir, Name: "fledge-plugin-x", Description: "Does x", Author: testAuthor})
	if err != nil || res.Created || res.Committed || !res.UpToDate || res.TopicAdded || res.DescriptionUpdated {
		t.Fatalf("second publish: %+v, %v", res, err)
	}
}

func TestPublishUpdateNeedsConsent(t *testing.T) {
	t.Parallel()
	f := publishtest.New(t)
	rp := f.AddRepo("acme", "fledge-plugin-x", &publishtest.Repo{Description: "old", Private: true, Topics: []string{"cli"}})
	dir := pluginDir(t)
	asked := ""
	req := Request{Dir: dir, Org: "acme", Name: "fledge-plugin-x", Description: "new", Private: false, Author: testAuthor,
		ConfirmUpdate: func(owner, name string) (bool, error) { asked = owner + "/" + name; return false, nil }}
	res, err := Publish(context.Background(), opts(f), req)
	if err != nil || !res.Cancelled || asked != "acme/fledge-plugin-x" {
		t.Fatalf("declined: %+v, %v (asked %q)", res, err, asked)
	}
	if f.Calls() != "GET /repos/acme/fledge-plugin-x" || publishtest.Head(t, rp.Bare) != "" {
		t.Fatalf("a declined update changed something: calls %s", f.Calls())
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); !os.IsNotExist(err) {
		t.Error("a declined update made the directory a repository")
	}

	req.ConfirmUpdate = func(string, string) (bool, error) { return true, nil }
	res, err = Publish(context.Background(), opts(f), req)
	if err != nil || res.Cancelled || res.Created || !res.DescriptionUpdated || !res.TopicAdded || !res.Private {
		t.Fatalf("accepted: %+v, %v", res, err)
	}
	if rp.Description != "new" || !rp.Private || strings.Join(rp.Topics, ",") != "cli,fledge-plugin" {
		t.Errorf("repository now: %+v (visibility must never change)", rp)
	}
	if publishtest.Head(t, rp.Bare) != res.Commit {
		t.Error("not pushed")
	}
}

func TestPublishNeverForcePushes(t *testing.T) {
	t.Parallel()
	f := publishtest.New(t)
	dir := pluginDir(t)
	req := Request{Dir: dir, Name: "fledge-plugin-x", Description: "d", Author: testAuthor}
	res, err := Publish(context.Background(), opts(f), req)
	if err != nil {
		t.Fatal(err)
	}
	bare := f.Repo("octo", "fledge-plugin-x").Bare

	// Someone else pushes a commit the directory does not have.
	other := filepath.Join(t.TempDir(), "other")
	r, err := git.PlainClone(other, false, &git.CloneOptions{URL: "file://" + bare})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "NEWS"), []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	theirs, err := wt.Commit("theirs", &git.CommitOptions{Author: testAuthor})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Push(&git.PushOptions{}); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Publish(context.Background(), opts(f), req)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "git pull") {
		t.Fatalf("err = %v", err)
	}
	if got := publishtest.Head(t, bare); got != theirs.String() || got == res.Commit {
		t.Fatalf("the remote's commit was overwritten: %s", got)
	}
}

func TestPublishErrorsNeverCarryTheToken(t *testing.T) {
	t.Parallel()
	f := publishtest.New(t)
	f.Override = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == "POST" {
			w.WriteHeader(403)
			fmt.Fprintf(w, `{"message":"Resource not accessible by integration"}`)
			return true
		}
		return false
	}
	_, err := Publish(context.Background(), opts(f), Request{Dir: pluginDir(t), Name: "fledge-plugin-x", Author: testAuthor})
	var ae *registry.StatusError
	if !errors.As(err, &ae) || ae.Status != 403 || !strings.Contains(err.Error(), "repo scope") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), token) || strings.Contains(fmt.Sprintf("%+v %#v", err, ae), token) {
		t.Errorf("the token is in the error: %v", err)
	}
	o := opts(f)
	if s := fmt.Sprintf("%v %+v %#v", o, o, o.Token); strings.Contains(s, token) {
		t.Errorf("formatting the options shows the token: %s", s)
	}
}

func TestPublishRefusals(t *testing.T) {
	t.Parallel()
	f := publishtest.New(t)
	dir := pluginDir(t)
	for _, tc := range []struct {
		o    Options
		req  Request
		want string
	}{
		{Options{API: f.URL}, Request{Dir: dir, Name: "fledge-plugin-x"}, "needs a GitHub token"},
		{Options{API: "http://example.com", Token: token}, Request{Dir: dir, Name: "fledge-plugin-x"}, "only ever sent over https"},
		{Options{API: "https://user:pw@example.com", Token: token}, Request{Dir: dir, Name: "fledge-plugin-x"}, "without credentials"},
		{opts(f), Request{Dir: dir, Name: "../x"}, "cannot be a GitHub repository name"},
		{opts(f), Request{Dir: dir, Org: "acme/../x", Name: "fledge-plugin-x"}, "organisation"},
	} {
		_, err := Publish(context.Background(), tc.o, tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.req, err, tc.want)
		}
	}
}

func TestPublishTimesOut(t *testing.T) {
	t.Parallel()
	f := publishtest.New(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	f.Override = func(w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	}
	o := opts(f)
	o.Timeout = 50 * time.Millisecond
	o.HTTPClient = nil
	_, err := Publish(context.Background(), o, Request{Dir: pluginDir(t), Name: "fledge-plugin-x"})
	if err == nil || !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "Timeout") {
		t.Fatalf("a hung API: err = %v", err)
	}
}
