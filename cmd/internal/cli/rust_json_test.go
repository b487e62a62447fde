package cli_test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The Rust fledge 1.7.2's --json documents, field by field: each one's
// name, JSON type and null convention, written from Rust's source (the
// comment above each names the file and lines, at tag v1.7.2 of
// CorvidLabs/fledge), never from fledge's output. Every fledge document
// must hold all of them; fledge's own fields stand beside them
// (TestJSONFieldSets pins those).
//
// A path walks objects (.name) and every element of an array ([]). A kind
// is a JSON type (string, number, bool, object, array), several joined by
// | (string|null), []string for an array of strings, date for Rust's
// YYYY-MM-DD, enum:a|b for one of Rust's words, or const:x; a trailing ?
// means Rust may leave the field out (if present it has that kind). A path
// below a null or an omitted field is not checked; a path through an
// array needs at least one element somewhere, so no check passes vacuously.
type rustField struct{ path, kind string }

type rustDoc struct {
	// steps are the TestJSONFieldSets steps whose documents this is.
	steps  []string
	fields []rustField
}

const rustTiers = "enum:local|official|team|unverified"

// rustCapabilities is src/plugin/mod.rs:88-100 (PluginCapabilities, as
// serde writes it: filesystem only when set).
func rustCapabilities(prefix string) []rustField {
	return []rustField{
		{prefix + ".exec", "bool"}, {prefix + ".store", "bool"}, {prefix + ".metadata", "bool"},
		{prefix + ".filesystem", "string?"}, {prefix + ".network", "bool"},
	}
}

var rustDocs = map[string]rustDoc{
	// src/plugin/list.rs:33-52 (list_plugins) with the resource envelope
	// of src/envelope.rs:34-42.
	"list": {steps: []string{"list"}, fields: []rustField{
		{".schema_version", "number"}, {".plugins", "array"},
		{".plugins[].name", "string"}, {".plugins[].version", "string"}, {".plugins[].source", "string"},
		{".plugins[].installed", "date"}, {".plugins[].commands", "[]string"},
		{".plugins[].pinned_ref", "string|null"}, {".plugins[].trust_tier", rustTiers},
		{".plugins[].runtime", "enum:native|wasm"},
	}},
	// src/plugin/list.rs:116-144 (audit_plugins).
	"audit": {steps: []string{"audit"}, fields: []rustField{
		{".schema_version", "number"}, {".audit", "array"},
		{".audit[].name", "string"}, {".audit[].version", "string"}, {".audit[].source", "string"},
		{".audit[].trust_tier", rustTiers}, {".audit[].runtime", "enum:native|wasm"}, {".audit[].sandboxed", "bool"},
		{".audit[].capabilities", "object"},
		{".audit[].capabilities.exec", "bool"}, {".audit[].capabilities.store", "bool"},
		{".audit[].capabilities.metadata", "bool"}, {".audit[].capabilities.filesystem", "string"},
		{".audit[].capabilities.network", "bool"},
		{".audit[].commands", "[]string"}, {".audit[].has_lifecycle_hooks", "bool"},
	}},
	// src/plugin/install.rs:318-334 (one source) and 392-413 (--defaults),
	// each plugin's report 624-632, with the action envelope of
	// src/envelope.rs:60-68.
	"install": {steps: []string{"install", "install_local", "install_plain", "install_defaults", "install_failed"}, fields: append([]rustField{
		{".schema_version", "number"}, {".action", "const:install"}, {".scope", "enum:single|defaults"},
		{".installed", "array"}, {".failed", "array"},
		{".installed[].name", "string"}, {".installed[].source", "string"}, {".installed[].version", "string"},
		{".installed[].trust_tier", rustTiers}, {".installed[].commands", "[]string"},
		{".installed[].pinned_ref", "string|null"}, {".installed[].capabilities", "object|null"},
		{".failed[].source", "string"}, {".failed[].error", "string"},
		{".summary", "object"}, {".summary.total", "number"}, {".summary.installed", "number"}, {".summary.failed", "number"},
	}, rustCapabilities(".installed[].capabilities")...)},
	// src/plugin/update.rs:326-343 (the envelope); results 140-316 (skipped
	// and failed, with detail, pinned_ref and latest_tag) and 593-601
	// (updated, with version, commands, previous_ref and new_ref).
	"update": {steps: []string{"update", "update_defaults"}, fields: []rustField{
		{".schema_version", "number"}, {".action", "const:update"}, {".scope", "enum:all|single|defaults"},
		{".results", "array"},
		{".results[].name", "string"}, {".results[].status", "enum:updated|skipped|failed"},
		{".results[].detail", "string?"}, {".results[].version", "string?"},
		{".results[].commands", "[]string?"}, {".results[].pinned_ref", "string?"},
		{".results[].latest_tag", "string?"}, {".results[].previous_ref", "string|null?"},
		{".results[].new_ref", "string?"},
		{".summary", "object"}, {".summary.total", "number"}, {".summary.updated", "number"},
		{".summary.skipped", "number"}, {".summary.failed", "number"},
	}},
	// src/plugin/validate.rs:8-14 (PluginValidationReport), printed by
	// 160-170 with the envelope of src/envelope.rs:82-89.
	"validate": {steps: []string{"validate", "validate_invalid"}, fields: []rustField{
		{".schema_version", "number"}, {".path", "string"}, {".plugin_name", "string"},
		{".errors", "[]string"}, {".warnings", "[]string"},
	}},
	// src/plugin/create.rs:140-152.
	"create": {steps: []string{"create"}, fields: []rustField{
		{".schema_version", "number"}, {".action", "const:create"}, {".path", "string"}, {".name", "string"},
		{".description", "string"}, {".files_created", "[]string"},
	}},
	// src/plugin/remove.rs:65-79.
	"remove": {steps: []string{"remove"}, fields: []rustField{
		{".schema_version", "number"}, {".action", "const:remove"}, {".removed", "object"},
		{".removed.name", "string"}, {".removed.source", "string"}, {".removed.version", "string"},
		{".removed.commands", "[]string"},
	}},
	// src/plugin/search.rs:47-78, each result src/search.rs:20-38
	// (SearchResult::to_json; topics always present).
	"search": {steps: []string{"search", "search_github"}, fields: []rustField{
		{".schema_version", "number"}, {".results", "array"},
		{".results[].owner", "string"}, {".results[].name", "string"}, {".results[].full_name", "string"},
		{".results[].description", "string"}, {".results[].stars", "number"}, {".results[].url", "string"},
		{".results[].topics", "[]string"}, {".results[].trust_tier", rustTiers},
	}},
	// src/plugin/recommend.rs:130-150.
	"recommend": {steps: []string{"recommend"}, fields: []rustField{
		{".schema_version", "number"}, {".action", "const:plugins_recommend"}, {".language", "string"},
		{".installed_count", "number"}, {".recommendations", "array"},
		{".recommendations[].repo", "string"}, {".recommendations[].reason", "string"},
	}},
	// src/publish.rs:327-352 (build_publish_envelope) with the plugin and
	// install_hint of src/plugin/publish.rs:42-55.
	"publish": {steps: []string{"publish"}, fields: []rustField{
		{".schema_version", "number"}, {".action", "const:publish"}, {".cancelled", "bool"},
		{".repo", "object"}, {".repo.owner", "string"}, {".repo.name", "string"}, {".repo.url", "string"},
		{".repo.created", "bool"}, {".repo.private", "bool"}, {".topic", "const:fledge-plugin"},
		{".plugin", "object"}, {".plugin.name", "string"}, {".plugin.version", "string"},
		{".plugin.description", "string"}, {".install_hint", "string"},
	}},
}

// rustValues are Rust's conventions for particular entries of the
// fixture: null where Rust writes None, and the words Rust uses.
var rustValues = []struct{ step, path, want string }{
	// An unpinned plugin's pinned_ref is null (list.rs:44, an Option).
	{"list", ".plugins[name=fledge-plugin-gold].pinned_ref", "null"},
	{"list", ".plugins[name=fledge-plugin-plain].pinned_ref", "v1.0.0"},
	{"list", ".plugins[name=fledge-plugin-gold].runtime", "native"},
	// A plugin without the protocol records no capabilities
	// (install.rs:588-592, build_plugin_entry): null in the report.
	{"install_plain", ".installed[0].capabilities", "null"},
	{"install_plain", ".scope", "single"},
	{"install_defaults", ".scope", "defaults"},
	{"install_defaults", ".summary.total", "3"},
	{"install_defaults", ".installed[0].pinned_ref", "v0.4.0"},
	{"install", ".installed[0].capabilities.exec", "true"},
	// The audit's hooks are the lifecycle ones (list.rs:246-277).
	{"audit", ".audit[name=fledge-plugin-gold].has_lifecycle_hooks", "true"},
	{"audit", ".audit[name=fledge-plugin-local].has_lifecycle_hooks", "false"},
	{"audit", ".audit[name=fledge-plugin-local].sandboxed", "false"},
	// Update: a pinned plugin with a newer tag is skipped with
	// latest_tag (update.rs:251-257); a default moves its pin, with
	// previous_ref and new_ref (update.rs:597-600).
	{"update", ".scope", "all"},
	{"update", ".results[name=fledge-plugin-plain].status", "skipped"},
	{"update", ".results[name=fledge-plugin-plain].latest_tag", "v1.1.0"},
	{"update", ".results[name=fledge-plugin-plain].pinned_ref", "v1.0.0"},
	{"update", ".results[name=fledge-plugin-gold].status", "updated"},
	{"update", ".results[name=fledge-plugin-gold].version", "1.0.0"},
	{"update", ".results[name=fledge-plugin-gold].commands", `["gold"]`},
	{"update", ".results[name=fledge-plugin-local].status", "skipped"},
	// Rust writes pinned_ref and latest_tag only for a pinned plugin, and
	// previous_ref and new_ref only when the pin moved: a script testing
	// for the key must not see one on an unpinned plugin.
	{"update", ".results[name=fledge-plugin-gold].pinned_ref", "absent"},
	{"update", ".results[name=fledge-plugin-gold].latest_tag", "absent"},
	{"update", ".results[name=fledge-plugin-gold].previous_ref", "absent"},
	{"update", ".results[name=fledge-plugin-gold].new_ref", "absent"},
	{"update", ".results[name=fledge-plugin-plain].new_ref", "absent"},
	{"update_defaults", ".scope", "defaults"},
	{"update_defaults", ".results[name=fledge-plugin-github].status", "updated"},
	{"update_defaults", ".results[name=fledge-plugin-github].previous_ref", "v0.4.0"},
	{"update_defaults", ".results[name=fledge-plugin-github].new_ref", "v0.5.0"},
	{"update_defaults", ".results[name=fledge-plugin-github].version", "0.5.0"},
	// A missing description reads "No description" (search.rs:74-77).
	{"search_github", ".results[0].description", "No description"},
	{"search_github", ".results[0].owner", "someone"},
	{"search_github", ".results[0].full_name", "someone/fledge-plugin-tz"},
	{"search", ".results[name=fledge-plugin-bare].description", "No description"},
	{"search", ".results[name=fledge-plugin-bare].topics", "[]"},
	{"create", ".name", "made"},
	{"create", ".description", "Made for the golden file"},
	{"publish", ".cancelled", "false"},
	{"publish", ".repo.created", "true"},
	{"publish", ".install_hint", "fledge plugins install octo/fledge-plugin-made"},
}

// checkRustDocuments checks every document against Rust's.
func checkRustDocuments(t *testing.T, docs map[string]any) {
	cmds := make([]string, 0, len(rustDocs))
	for c := range rustDocs {
		cmds = append(cmds, c)
	}
	sort.Strings(cmds)
	for _, cmd := range cmds {
		spec := rustDocs[cmd]
		t.Run(cmd, func(t *testing.T) {
			for _, f := range spec.fields {
				reached := 0
				for _, step := range spec.steps {
					doc, ok := docs[step]
					if !ok {
						t.Fatalf("no document for step %s", step)
					}
					for _, problem := range checkRustField(doc, f, &reached) {
						t.Errorf("%s: %s: %s", step, f.path, problem)
					}
				}
				if reached == 0 {
					t.Errorf("%s (%s): no document of %v has it to check: the fixture must give it a value", f.path, f.kind, spec.steps)
				}
			}
		})
	}
	t.Run("values", func(t *testing.T) {
		for _, v := range rustValues {
			got, err := jsonPath(docs[v.step], v.path)
			if v.want == "absent" {
				if err == nil {
					t.Errorf("%s %s = %s, want the key absent as Rust omits it", v.step, v.path, renderJSON(got))
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %s: %v", v.step, v.path, err)
				continue
			}
			if s := renderJSON(got); s != v.want {
				t.Errorf("%s %s = %s, want %s", v.step, v.path, s, v.want)
			}
		}
	})
}

// checkRustField checks f in doc, counting in reached the values it could
// check, and returns what is wrong.
func checkRustField(doc any, f rustField, reached *int) []string {
	kind, optional := strings.CutSuffix(f.kind, "?")
	var problems []string
	var walk func(v any, rest string, where string)
	walk = func(v any, rest, where string) {
		if rest == "" {
			*reached++
			if p := kindProblem(v, kind); p != "" {
				problems = append(problems, fmt.Sprintf("at %s: %s", where, p))
			}
			return
		}
		if v == nil {
			*reached++ // below a null: nothing more to check
			return
		}
		if strings.HasPrefix(rest, "[]") {
			arr, ok := v.([]any)
			if !ok {
				problems = append(problems, fmt.Sprintf("at %s: want an array, got %s", where, jsonKind(v)))
				return
			}
			for i, el := range arr {
				walk(el, rest[2:], fmt.Sprintf("%s[%d]", where, i))
			}
			return
		}
		name := strings.TrimPrefix(rest, ".")
		next := ""
		if i := strings.IndexAny(name, ".["); i >= 0 {
			name, next = name[:i], name[i:]
		}
		obj, ok := v.(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("at %s: want an object, got %s", where, jsonKind(v)))
			return
		}
		child, present := obj[name]
		if !present {
			if optional && next == "" {
				*reached++
				return
			}
			problems = append(problems, fmt.Sprintf("at %s: field %q is missing (Rust's document has it)", where, name))
			return
		}
		walk(child, next, where+"."+name)
	}
	walk(doc, f.path, "")
	return problems
}

var rustDateRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d\d-\d\d$`) })

// kindProblem says how v falls short of kind, or "".
func kindProblem(v any, kind string) string {
	switch {
	case strings.HasPrefix(kind, "const:"):
		if s, ok := v.(string); !ok || s != strings.TrimPrefix(kind, "const:") {
			return fmt.Sprintf("want %q, got %s", strings.TrimPrefix(kind, "const:"), renderJSON(v))
		}
		return ""
	case strings.HasPrefix(kind, "enum:"):
		s, ok := v.(string)
		for _, w := range strings.Split(strings.TrimPrefix(kind, "enum:"), "|") {
			if ok && s == w {
				return ""
			}
		}
		return fmt.Sprintf("want one of Rust's words %s, got %s", strings.TrimPrefix(kind, "enum:"), renderJSON(v))
	case kind == "date":
		// The golden file's normalisation writes dates as <date>.
		if s, ok := v.(string); ok && (rustDateRe().MatchString(s) || s == "<date>") {
			return ""
		}
		return fmt.Sprintf("want a YYYY-MM-DD date, got %s", renderJSON(v))
	case kind == "[]string":
		arr, ok := v.([]any)
		if !ok {
			return fmt.Sprintf("want an array of strings, got %s", jsonKind(v))
		}
		for _, el := range arr {
			if _, ok := el.(string); !ok {
				return fmt.Sprintf("want an array of strings, holding %s", jsonKind(el))
			}
		}
		return ""
	}
	for _, k := range strings.Split(kind, "|") {
		if jsonKind(v) == k {
			return ""
		}
	}
	return fmt.Sprintf("want %s, got %s", kind, jsonKind(v))
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
