package manifest

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2/unstable"
)

// MaxKeys bounds the keys a plugin.toml may hold: every part of every key,
// table and array-table header, inline tables included. Real manifests
// hold a few dozen (the largest of the 66 in the corpus, 133). go-toml's
// duplicate-key tracker searches the keys seen so far for each new one, so
// decoding n keys costs O(n²): a 256 KiB file of 30,000 tables took 2 s to
// decode, and 18-35 s more to report its unknown keys through go-toml's
// strict mode. Counting is one linear pass that runs first; beyond the
// bound a manifest is refused before it is decoded.
const MaxKeys = 2048

// keyScan is the result of scanKeys.
type keyScan struct {
	// keys counts key parts, stopping at MaxKeys+1.
	keys int
	// unknown holds the keys fledge does not read, as shown to users.
	unknown map[string]bool
	// inline is set when an inline table was read (tests compare the
	// report with go-toml's strict mode, which names keys inside inline
	// tables without their table).
	inline bool
	// folded is the first key (with its canonical spelling) that names a
	// field only when case is ignored, as go-toml matches but the Rust
	// fledge's serde does not: "" when there is none.
	folded, canonical string
}

// scanKeys makes one pass over data with go-toml's parser, counting keys
// and, when report is set, collecting the keys the Manifest type does not
// read. Both cost time linear in len(data).
//
// A key is unknown as go-toml's strict mode defines it: no field of the
// struct it lands in has that name (go-toml matches names
// case-insensitively), and it is not under a table that is itself unknown
// (its contents are reported through the table). Unlike the strict mode,
// keys inside inline tables are named with their full path.
func scanKeys(data []byte, report bool) keyScan {
	s := keyScan{}
	if report {
		s.unknown = map[string]bool{}
	}
	root := manifestSchema()
	ctx, ctxPath, skip := root, []string(nil), !report
	p := parsers.Get().(*unstable.Parser)
	defer func() {
		p.Reset(nil)
		parsers.Put(p)
	}()
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts := s.keyParts(e.Key(), report)
			if s.keys > MaxKeys {
				return s
			}
			if report {
				node, st := root.resolve(parts)
				s.noteFolded(root, nil, parts)
				ctx, ctxPath, skip = node, parts, st != keyKnown
				if st == keyUnknown {
					s.unknown[showKey(parts)] = true
				}
			}
		case unstable.KeyValue:
			if skip {
				s.keyParts(e.Key(), false)
				s.countValue(e.Value())
			} else {
				s.keyValue(ctx, ctxPath, s.keyParts(e.Key(), true), e.Value())
			}
			if s.keys > MaxKeys {
				return s
			}
		}
	}
	// A syntax error ends the pass; toml.Unmarshal reports it with its
	// position.
	return s
}

// parsers reuses go-toml parsers and their node arenas across scans.
var parsers = sync.Pool{New: func() any { return new(unstable.Parser) }}

// keyValue checks one key = value against node, the table it appears in.
func (s *keyScan) keyValue(node *schemaNode, path, parts []string, v *unstable.Node) {
	child, st := node.resolve(parts)
	s.noteFolded(node, path, parts)
	if st != keyKnown {
		if st == keyUnknown {
			s.unknown[showKey(append(path[:len(path):len(path)], parts...))] = true
		}
		s.countValue(v)
		return
	}
	if v.Kind != unstable.InlineTable && v.Kind != unstable.Array {
		return
	}
	s.value(child, append(path[:len(path):len(path)], parts...), v)
}

// value walks a known key's value: inline tables are checked against
// node, arrays element by element (an array of inline tables fills a
// slice of structs).
func (s *keyScan) value(node *schemaNode, path []string, v *unstable.Node) {
	switch v.Kind {
	case unstable.InlineTable:
		s.inline = true
		for it := v.Children(); it.Next() && s.keys <= MaxKeys; {
			kv := it.Node()
			s.keyValue(node, path, s.keyParts(kv.Key(), true), kv.Value())
		}
	case unstable.Array:
		for it := v.Children(); it.Next() && s.keys <= MaxKeys; {
			s.value(node, path, it.Node())
		}
	}
}

// noteFolded records the first key whose parts name fields of node only
// when case is ignored (BUILD for build): go-toml would decode it into the
// field, the Rust fledge would ignore it, so the two would run different
// things.
func (s *keyScan) noteFolded(node *schemaNode, path, parts []string) {
	if s.folded != "" {
		return
	}
	canon := make([]string, 0, len(parts))
	folded := false
	for _, part := range parts {
		if node.leaf || node.anyKey != nil {
			return
		}
		c, ok := node.fields[part]
		if !ok {
			if c, ok = node.fields[strings.ToLower(part)]; !ok {
				return
			}
			folded = true
			part = node.names[strings.ToLower(part)]
		}
		canon = append(canon, part)
		node = c
	}
	if folded {
		full := append(path[:len(path):len(path)], parts...)
		s.folded = showKey(full)
		s.canonical = showKey(append(path[:len(path):len(path)], canon...))
	}
}

// countValue counts the keys inside a value that is not checked.
func (s *keyScan) countValue(v *unstable.Node) {
	switch v.Kind {
	case unstable.InlineTable:
		for it := v.Children(); it.Next() && s.keys <= MaxKeys; {
			kv := it.Node()
			s.keyParts(kv.Key(), false)
			s.countValue(kv.Value())
		}
	case unstable.Array:
		for it := v.Children(); it.Next() && s.keys <= MaxKeys; {
			s.countValue(it.Node())
		}
	}
}

// keyParts counts a key's parts and, when keep is set, returns them.
func (s *keyScan) keyParts(it unstable.Iterator, keep bool) []string {
	var parts []string
	for it.Next() {
		s.keys++
		if keep {
			parts = append(parts, string(it.Node().Data))
		}
	}
	return parts
}

// sorted returns the unknown keys in order.
func (s *keyScan) sorted() []string {
	if len(s.unknown) == 0 {
		return nil
	}
	out := make([]string, 0, len(s.unknown))
	for k := range s.unknown {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// showKey renders a key path as a dotted key, quoting parts that would
// not read back as one bare part.
func showKey(parts []string) string {
	shown := make([]string, len(parts))
	for i, k := range parts {
		shown[i] = k
		if k == "" || strings.ContainsAny(k, ". \t\"") {
			shown[i] = strconv.Quote(k)
		}
	}
	return strings.Join(shown, ".")
}

// keyState says how a key path resolves against the schema.
type keyState int

const (
	keyKnown   keyState = iota
	keyUnknown          // some part names no field
	keyOpaque           // the path goes below a plain value: decoding rejects it or ignores it
)

// schemaNode is what a table of the Manifest type accepts: named fields
// (a struct), any key (a map), or nothing below it (a plain value). A slice
// of structs is its element: a key path names no index.
type schemaNode struct {
	fields map[string]*schemaNode // by name, and by lower-case name
	names  map[string]string      // lower-case name to name
	anyKey *schemaNode            // a map's values
	leaf   bool
}

func (n *schemaNode) resolve(parts []string) (*schemaNode, keyState) {
	for _, part := range parts {
		switch {
		case n.leaf:
			return n, keyOpaque
		case n.anyKey != nil:
			n = n.anyKey
		default:
			c, ok := n.fields[part]
			if !ok {
				c, ok = n.fields[strings.ToLower(part)]
			}
			if !ok {
				return n, keyUnknown
			}
			n = c
		}
	}
	return n, keyKnown
}

var manifestSchema = sync.OnceValue(func() *schemaNode {
	return schemaOf(reflect.TypeOf(Manifest{}))
})

func schemaOf(t reflect.Type) *schemaNode {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		if t.Kind() != reflect.Pointer && t.Elem().Kind() != reflect.Struct {
			return &schemaNode{leaf: true}
		}
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Map:
		return &schemaNode{anyKey: schemaOf(t.Elem())}
	case reflect.Struct:
		n := &schemaNode{fields: map[string]*schemaNode{}, names: map[string]string{}}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			c := schemaOf(f.Type)
			n.fields[name] = c
			if _, taken := n.fields[strings.ToLower(name)]; !taken {
				n.fields[strings.ToLower(name)] = c
			}
			if _, taken := n.names[strings.ToLower(name)]; !taken {
				n.names[strings.ToLower(name)] = name
			}
		}
		return n
	}
	return &schemaNode{leaf: true}
}
