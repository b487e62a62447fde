package manifest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestCapabilityTableCoversTheType holds Table and the Capabilities type to
// one list: every field has exactly one row, named as the field's toml and
// json keys, whose accessor reaches that field, and a scoped field is a
// string with NoScope as its first known scope.
func TestCapabilityTableCoversTheType(t *testing.T) {
	typ := reflect.TypeOf(Capabilities{})
	if typ.NumField() != len(Table) {
		t.Fatalf("Capabilities has %d fields and Table %d rows: add a row for each field", typ.NumField(), len(Table))
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		key := func(tag string) string { name, _, _ := strings.Cut(f.Tag.Get(tag), ","); return name }
		ci := Table[i]
		if string(ci.Name) != key("toml") || string(ci.Name) != key("json") {
			t.Errorf("row %d is %q, but field %s has toml key %q and json key %q (rows follow the fields' order)", i, ci.Name, f.Name, key("toml"), key("json"))
		}
		if ci.Meaning == "" {
			t.Errorf("%s: no Meaning for the approval form", ci.Name)
		}
		var c Capabilities
		field := reflect.ValueOf(&c).Elem().Field(i)
		switch {
		case ci.flag != nil && ci.scope == nil && f.Type.Kind() == reflect.Bool:
			*ci.flag(&c) = true
			if !field.Bool() || !c.Has(ci.Name) || len(c.List()) != 1 {
				t.Errorf("%s: the row's switch does not reach field %s alone", ci.Name, f.Name)
			}
		case ci.scope != nil && ci.flag == nil && f.Type.Kind() == reflect.String:
			if len(ci.Scopes) == 0 || ci.Scopes[0] != NoScope || ci.Unbounded == "" || ci.UnboundedMeaning == "" {
				t.Errorf("%s: a scoped row needs Scopes starting with %q, Unbounded and UnboundedMeaning", ci.Name, NoScope)
			}
			*ci.scope(&c) = "x"
			if field.String() != "x" || c.Scope(ci.Name) != "x" || c.KnownScope(ci.Name) || len(c.List()) != 1 {
				t.Errorf("%s: the row's scope does not reach field %s alone", ci.Name, f.Name)
			}
		case ci.list != nil && ci.flag == nil && ci.scope == nil && f.Type == reflect.TypeOf([]string(nil)):
			*ci.list(&c) = []string{"B", "A", "B"}
			if field.Len() != 3 || !reflect.DeepEqual(c.Entries(ci.Name), []string{"A", "B"}) || !c.Has(ci.Name) || len(c.List()) != 1 {
				t.Errorf("%s: the row's list does not reach field %s alone", ci.Name, f.Name)
			}
		default:
			t.Errorf("%s: a row has a switch (for a bool field), a scope (for a string field) or a list (for a []string field), one only", ci.Name)
		}
	}
}

// TestCapabilitySetOperations checks the operations the table drives
// against the filesystem scope rules: a scope survives an intersection only
// when both sides name it, a union takes the other side's scope, and a
// different scope is missing.
func TestCapabilitySetOperations(t *testing.T) {
	req := Capabilities{Exec: true, Network: true, Filesystem: "project"}
	granted := Capabilities{Exec: true, Store: true, Filesystem: "plugin"}
	if got, want := req.Intersect(granted), (Capabilities{Exec: true}); !reflect.DeepEqual(got, want) {
		t.Errorf("Intersect = %+v, want %+v", got, want)
	}
	if got, want := granted.Union(req), (Capabilities{Exec: true, Store: true, Network: true, Filesystem: "project"}); !reflect.DeepEqual(got, want) {
		t.Errorf("Union = %+v, want %+v", got, want)
	}
	if got := JoinCapabilities(req.Missing(granted)); got != "network, filesystem" {
		t.Errorf("Missing = %q", got)
	}
	if got, want := req.Only(map[Capability]bool{CapFilesystem: true, CapStore: true}), (Capabilities{Filesystem: "project"}); !reflect.DeepEqual(got, want) {
		t.Errorf("Only = %+v, want %+v", got, want)
	}
	// A listed capability: the intersection keeps what is granted that
	// the request covers (all of it when the request claims none), the
	// union joins both lists, and an entry not covered is missing.
	envReq := Capabilities{Environment: []string{"AWS_*", "GITHUB_TOKEN"}}
	envGranted := Capabilities{Environment: []string{"AWS_REGION", "GITHUB_TOKEN", "OTHER"}}
	if got, want := envReq.Intersect(envGranted), (Capabilities{Environment: []string{"AWS_REGION", "GITHUB_TOKEN"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("Intersect of environment = %+v, want %+v", got, want)
	}
	if got, want := (Capabilities{}).Intersect(envGranted), (Capabilities{Environment: []string{"AWS_REGION", "GITHUB_TOKEN", "OTHER"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("Intersect with a request claiming no environment = %+v, want %+v", got, want)
	}
	if got, want := envReq.Union(envGranted).Environment, []string{"AWS_*", "AWS_REGION", "GITHUB_TOKEN", "OTHER"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Union of environment = %v, want %v", got, want)
	}
	if got := JoinCapabilities(envReq.Missing(envGranted)); got != "environment" {
		t.Errorf("Missing: AWS_* is not covered by AWS_REGION, got %q", got)
	}
	if got := envReq.Missing(Capabilities{Environment: []string{"AWS_*", "GITHUB_TOKEN"}}); len(got) != 0 {
		t.Errorf("Missing of a list granted whole = %v", got)
	}
	if got := string(envReq.ShownJSON()); !strings.HasSuffix(got, `"environment":["AWS_*","GITHUB_TOKEN"]}`) {
		t.Errorf("ShownJSON of environment = %s", got)
	}
	if got := string((Capabilities{}).ShownJSON()); !strings.HasSuffix(got, `"environment":[]}`) {
		t.Errorf("ShownJSON of no environment = %s", got)
	}
	// Rows added after filesystem extend the object; these keys lead it.
	if got := string((Capabilities{Store: true, Filesystem: "<all>"}).ShownJSON()); !strings.HasPrefix(got, `{"exec":false,"store":true,"metadata":false,"network":false,"filesystem":"<all>"`) {
		t.Errorf("ShownJSON = %s", got)
	}
	if got := string((Capabilities{}).ShownJSON()); !strings.Contains(got, `"filesystem":"none"`) || !json.Valid([]byte(got)) {
		t.Errorf("ShownJSON of nothing = %s", got)
	}
	if (Capabilities{Store: true, Metadata: true}).Modifies() || !(Capabilities{Exec: true}).Modifies() {
		t.Error("Modifies: only exec lets a plugin change things beyond its data")
	}
}
