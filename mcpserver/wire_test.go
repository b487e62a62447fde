package mcpserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/corvidlabs/fledge-go/mcpserver"
)

// TestBeforeInitialize: a request before initialize is an invalid request
// (-32600), not an error without a code.
func TestBeforeInitialize(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd, stderr := e.fledge("mcp")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	sc := bufio.NewScanner(&out)
	var m struct {
		ID    int `json:"id"`
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &m) != nil || m.ID != 1 || m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("answer %q, want error code %d", out.String(), jsonrpc.CodeInvalidRequest)
	}
}

// TestBearerScheme: the token's scheme is case-insensitive.
func TestBearerScheme(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.server(nil)
	defer s.Shutdown()
	ts := httptest.NewServer(s.Handler(mcpserver.HTTPOptions{Token: "tok"}))
	defer ts.Close()
	for auth, want := range map[string]int{"Bearer tok": 200, "bearer tok": 200, "BEARER tok": 200, "Basic tok": 401, "bearer other": 401, "bearertok": 401} {
		req, _ := http.NewRequest("POST", ts.URL+mcpserver.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", auth)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("Authorization %q: %d, want %d", auth, res.StatusCode, want)
		}
	}
}
