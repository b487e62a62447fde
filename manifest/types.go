package manifest

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// typeErrors lists every value in data whose TOML type does not fit the
// field it sets, in the manifest's own terms ("[capabilities] exec: want
// true or false, not a string"). go-toml stops at the first and names it
// in Go's terms (struct field manifest.Capabilities.Exec of type bool),
// which says nothing to a plugin author; a file with several mistakes
// should show them all at once. nil when data is not TOML or has none.
func typeErrors(data []byte) []string {
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	checkTable(reflect.TypeOf(Manifest{}), doc, nil, &out)
	sort.Strings(out)
	lines := keyLines(data)
	for i, p := range out {
		key, _, _ := strings.Cut(p, ": ")
		for key != "" {
			if n, ok := lines[key]; ok {
				out[i] = fmt.Sprintf("line %d: %s", n, p)
				break
			}
			// plugin.keywords[2] is on the line of plugin.keywords.
			j := strings.LastIndexByte(key, '[')
			if j < 0 {
				break
			}
			key = key[:j]
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return lineOf(out[i]) < lineOf(out[j]) })
	return out
}

// lineOf is the line a problem names, in file order; 0 when it names none.
func lineOf(problem string) int {
	var n int
	fmt.Sscanf(problem, "line %d:", &n)
	return n
}

// keyLines maps each key = value in data, as showPath writes it, to its
// line.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	arrays := map[string]int{} // [[table]] to how many so far, under its parent's current one
	var p unstable.Parser
	p.Reset(data)
	ctx := ""
	for p.NextExpression() {
		e := p.Expression()
		var parts []string
		for it := e.Key(); it.Next(); {
			parts = append(parts, string(it.Node().Data))
		}
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			ctx = ""
			for i, part := range parts {
				if ctx != "" {
					ctx += "."
				}
				ctx += part
				if i == len(parts)-1 && e.Kind == unstable.ArrayTable {
					arrays[ctx]++
					for k := range arrays {
						if strings.HasPrefix(k, ctx+"[") || strings.HasPrefix(k, ctx+".") {
							delete(arrays, k)
						}
					}
				}
				if n, ok := arrays[ctx]; ok {
					ctx += "[" + strconv.Itoa(n) + "]"
				}
			}
		case unstable.KeyValue:
			key := strings.Join(parts, ".")
			if ctx != "" {
				key = ctx + "." + key
			}
			if it := e.Key(); it.Next() {
				lines[key] = p.Shape(it.Node().Raw).Start.Line
			}
		}
	}
	return lines
}

func checkTable(t reflect.Type, table map[string]any, path []string, out *[]string) {
	for key, v := range table {
		ft, ok := fieldType(t, key)
		if !ok {
			continue // unknown keys are reported as warnings elsewhere
		}
		checkValue(ft, v, append(path[:len(path):len(path)], key), out)
	}
}

// fieldType is the type of the field of struct (or map) t that key sets.
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	if t.Kind() == reflect.Map {
		return t.Elem(), true
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == key {
			return f.Type, true
		}
	}
	return nil, false
}

func checkValue(t reflect.Type, v any, path []string, out *[]string) {
	want, got := "", tomlKind(v)
	switch t.Kind() {
	case reflect.String:
		want = "a string in quotes"
	case reflect.Bool:
		want = "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
		want = "a whole number"
	case reflect.Float64, reflect.Float32:
		want = "a number"
	case reflect.Slice:
		items, ok := v.([]any)
		if !ok {
			want = "a list"
			break
		}
		for i, it := range items {
			checkValue(t.Elem(), it, append(path[:len(path):len(path)], strconv.Itoa(i)), out)
		}
		return
	case reflect.Struct, reflect.Map:
		tbl, ok := v.(map[string]any)
		if !ok {
			want = "a table"
			break
		}
		checkTable(t, tbl, path, out)
		return
	default:
		return
	}
	if kindOf(t.Kind()) != got {
		*out = append(*out, fmt.Sprintf("%s: want %s, not %s", showPath(path), want, got))
	}
}

// kindOf is the tomlKind a field of kind k takes.
func kindOf(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true/false"
	case reflect.Float64, reflect.Float32:
		return "a number with a fraction"
	}
	return "a whole number"
}

func tomlKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "true/false"
	case int64:
		return "a whole number"
	case float64:
		return "a number with a fraction"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	case time.Time, toml.LocalDate, toml.LocalDateTime, toml.LocalTime:
		return "a date or time"
	}
	return fmt.Sprintf("%T", v)
}

// showPath writes a key as a dotted path, list items numbered from 1:
// plugin.version, commands[2].binary.
func showPath(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if n, err := strconv.Atoi(p); err == nil && i > 0 {
			fmt.Fprintf(&b, "[%d]", n+1)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}
