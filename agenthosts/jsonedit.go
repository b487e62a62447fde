package agenthosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// jsonConnect edits a JSON (with comments) file's text so that
// doc[key][name] is entry.
func jsonConnect(data []byte, key, name string, entry map[string]any) ([]byte, bool, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		b, _ := json.MarshalIndent(map[string]any{key: map[string]any{name: entry}}, "", "  ")
		return append(b, '\n'), true, nil
	}
	root, obj, err := parseObject(data)
	if err != nil {
		return nil, false, err
	}
	var out []byte
	parent := member(obj, key)
	switch {
	case parent == nil:
		out = insertMember(data, root, obj, key, map[string]any{name: entry})
	default:
		pobj, ok := parent.Value.Value.(*hujson.Object)
		if !ok {
			return nil, false, fmt.Errorf("%q is not a JSON object: fix it by hand", key)
		}
		m := member(pobj, name)
		if m == nil {
			out = insertMember(data, &parent.Value, pobj, name, entry)
			break
		}
		if same(m.Value, entry) {
			return data, false, nil
		}
		text := render(entry, lineIndent(data, m.Name.StartOffset), indentUnit(data))
		out = splice(data, m.Value.StartOffset, m.Value.EndOffset, text)
	}
	return out, true, checkJSON(data, out, key, name, entry)
}

// jsonDisconnect removes doc[key][name] from a JSON file's text.
func jsonDisconnect(data []byte, key, name string) ([]byte, bool, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return data, false, nil
	}
	_, obj, err := parseObject(data)
	if err != nil {
		return nil, false, err
	}
	parent := member(obj, key)
	if parent == nil {
		return data, false, nil
	}
	pobj, ok := parent.Value.Value.(*hujson.Object)
	if !ok {
		return data, false, nil
	}
	i := -1
	for j := range pobj.Members {
		if memberName(&pobj.Members[j]) == name {
			i = j
		}
	}
	if i < 0 {
		return data, false, nil
	}
	// An object left empty goes with it: connecting may have added it.
	var out []byte
	if len(pobj.Members) == 1 {
		root, _ := hujson.Parse(data)
		robj := root.Value.(*hujson.Object)
		k := -1
		for j := range robj.Members {
			if memberName(&robj.Members[j]) == key {
				k = j
			}
		}
		out = removeMember(data, &root, robj, k)
	} else {
		out = removeMember(data, &parent.Value, pobj, i)
	}
	return out, true, checkJSON(data, out, key, name, nil)
}

// removeMember removes obj's member i (obj is objVal's), its comma, and
// its line when it had one to itself.
func removeMember(data []byte, objVal *hujson.Value, obj *hujson.Object, i int) []byte {
	m := obj.Members[i]
	ns, ve := m.Name.StartOffset, m.Value.EndOffset
	switch p := skip(data, ve); {
	case p < len(data) && data[p] == ',':
		start, end := ns, p+1
		if ls := lineStart(data, ns); isBlank(data[ls:ns]) {
			start = ls
		}
		for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
			end++
		}
		if end < len(data) && data[end] == '\r' {
			end++
		}
		if end < len(data) && data[end] == '\n' && start == lineStart(data, ns) {
			end++
		}
		return splice(data, start, end, "")
	case i > 0:
		// The last member: the comma after the one before it, and the
		// member with the line break before it (a comment between them
		// stays) or, on one line, with the space after the comma.
		pc := skip(data, obj.Members[i-1].Value.EndOffset)
		start := pc + 1
		if ls := lineStart(data, ns); ls-1 > pc && isBlank(data[ls:ns]) {
			start = ls - 1
			if start-1 > pc && data[start-1] == '\r' {
				start--
			}
		}
		out := splice(data, start, ve, "")
		return splice(out, pc, pc+1, "")
	}
	// The only member: the object keeps its braces and what closes it.
	return splice(data, objVal.StartOffset+1, ve, "")
}

// parseObject parses data, which must hold a JSON object.
func parseObject(data []byte) (*hujson.Value, *hujson.Object, error) {
	root, err := hujson.Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("not valid JSON: %w (fix it, then try again)", err)
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil, nil, errors.New("not a JSON object: fix it, then try again")
	}
	return &root, obj, nil
}

func memberName(m *hujson.ObjectMember) string {
	if lit, ok := m.Name.Value.(hujson.Literal); ok {
		return lit.String()
	}
	return ""
}

// member is obj's last member called name (the one JSON readers keep).
func member(obj *hujson.Object, name string) *hujson.ObjectMember {
	var found *hujson.ObjectMember
	for i := range obj.Members {
		if memberName(&obj.Members[i]) == name {
			found = &obj.Members[i]
		}
	}
	return found
}

// insertMember adds "name": value as obj's last member, on a line of its
// own indented as the member before it, keeping the file's trailing comma
// style and a comment ending the line before on that line.
func insertMember(data []byte, objVal *hujson.Value, obj *hujson.Object, name string, value any) []byte {
	unit := indentUnit(data)
	if len(obj.Members) == 0 {
		outer := lineIndent(data, objVal.StartOffset)
		open, end := objVal.StartOffset+1, objVal.EndOffset-1
		text := "\n" + outer + unit + memberText(name, value, outer+unit, unit) + "\n" + outer
		if !isBlank(data[open:end]) {
			text = "\n" + outer + unit + memberText(name, value, outer+unit, unit)
			end = open
		}
		return splice(data, open, end, text)
	}
	last := obj.Members[len(obj.Members)-1]
	indent := lineIndent(data, last.Name.StartOffset)
	end := last.Value.EndOffset
	p := skip(data, end)
	trailing := p < len(data) && data[p] == ','
	after := end
	if trailing {
		after = p + 1
	}
	q := eol(data, after)
	text := "\n" + indent + memberText(name, value, indent, unit)
	if trailing {
		return splice(data, q, q, text+",")
	}
	// A comma after the last value, the new member after the line's end.
	out := splice(data, q, q, text)
	return splice(out, end, end, ",")
}

func memberText(name string, value any, indent, unit string) string {
	k, _ := json.Marshal(name)
	return string(k) + ": " + render(value, indent, unit)
}

func render(v any, indent, unit string) string {
	b, _ := json.MarshalIndent(v, indent, unit)
	return string(b)
}

// skip returns the offset of the first byte at or after off that is not
// whitespace or a comment.
func skip(data []byte, off int) int {
	for off < len(data) {
		switch {
		case data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r':
			off++
		case bytes.HasPrefix(data[off:], []byte("//")):
			for off < len(data) && data[off] != '\n' {
				off++
			}
		case bytes.HasPrefix(data[off:], []byte("/*")):
			if i := bytes.Index(data[off+2:], []byte("*/")); i >= 0 {
				off += i + 4
			} else {
				return len(data)
			}
		default:
			return off
		}
	}
	return off
}

// eol is where the line holding off ends, when only spaces and a line
// comment follow off on it; off otherwise.
func eol(data []byte, off int) int {
	q := off
	for q < len(data) && (data[q] == ' ' || data[q] == '\t') {
		q++
	}
	if bytes.HasPrefix(data[q:], []byte("//")) {
		for q < len(data) && data[q] != '\n' {
			q++
		}
	}
	if q < len(data) && data[q] == '\r' {
		return q
	}
	if q == len(data) || data[q] == '\n' {
		return q
	}
	return off
}

func lineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

// lineIndent is the whitespace the line holding off starts with.
func lineIndent(data []byte, off int) string {
	line := data[lineStart(data, off):off]
	n := 0
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	return string(line[:n])
}

// indentUnit is one level of the file's indentation: a tab when its first
// indented line starts with one, else as many spaces as it has (2 when
// none is indented).
func indentUnit(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "\t"):
			return "\t"
		case strings.HasPrefix(line, " ") && strings.TrimSpace(line) != "":
			return line[:len(line)-len(strings.TrimLeft(line, " "))]
		}
	}
	return "  "
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

func splice(data []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(data)-(end-start)+len(text))
	out = append(out, data[:start]...)
	out = append(out, text...)
	return append(out, data[end:]...)
}

// same reports whether v holds the JSON value want.
func same(v hujson.Value, want any) bool {
	c := v.Clone()
	c.Standardize()
	var got any
	if json.Unmarshal(c.Pack(), &got) != nil {
		return false
	}
	return equalJSON(got, want)
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	var u, w any
	_ = json.Unmarshal(x, &u)
	_ = json.Unmarshal(y, &w)
	x, _ = json.Marshal(u)
	y, _ = json.Marshal(w)
	return bytes.Equal(x, y)
}

// checkJSON makes sure an edit did only what it meant: out parses, holds
// want (nil: nothing) as doc[key][name], and is otherwise what in was.
func checkJSON(in, out []byte, key, name string, want any) error {
	decode := func(b []byte) (map[string]any, error) {
		v, err := hujson.Standardize(bytes.Clone(b))
		if err != nil {
			return nil, err
		}
		var m map[string]any
		return m, json.Unmarshal(v, &m)
	}
	before, err := decode(in)
	if err != nil {
		return err
	}
	after, err := decode(out)
	if err != nil {
		return fmt.Errorf("the edit would break the file (%v): add the entry by hand", err)
	}
	return checkDoc(before, after, key, name, want)
}

// checkDoc compares two decoded documents: after holds want (nil:
// nothing) at [key][name], and is otherwise before.
func checkDoc(before, after map[string]any, key, name string, want any) error {
	got, _ := after[key].(map[string]any)
	if want == nil && got != nil && got[name] != nil || want != nil && (got == nil || !equalJSON(got[name], want)) {
		return errors.New("the edit did not do what it should: change the file by hand")
	}
	strip := func(doc map[string]any) map[string]any {
		c := map[string]any{}
		for k, v := range doc {
			c[k] = v
		}
		if m, ok := c[key].(map[string]any); ok {
			mc := map[string]any{}
			for k, v := range m {
				if k != name {
					mc[k] = v
				}
			}
			c[key] = mc
		}
		if m, ok := c[key].(map[string]any); ok && len(m) == 0 {
			delete(c, key)
		}
		return c
	}
	if !equalJSON(strip(before), strip(after)) {
		return errors.New("the edit would change other settings: change the file by hand")
	}
	return nil
}
