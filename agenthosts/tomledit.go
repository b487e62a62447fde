package agenthosts

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// tomlConnect edits a TOML file's text so that its table [key.name] is
// entry: the table's lines are replaced, or a table is added at the end.
func tomlConnect(data []byte, key, name string, entry map[string]any) ([]byte, bool, error) {
	doc, err := decodeTOML(data)
	if err != nil {
		return nil, false, err
	}
	body, err := toml.Marshal(entry)
	if err != nil {
		return nil, false, err
	}
	block := "[" + tomlKey(key) + "." + tomlKey(name) + "]\n" + string(body)
	var out []byte
	if servers, _ := doc[key].(map[string]any); servers != nil && servers[name] != nil {
		if equalJSON(servers[name], entry) {
			return data, false, nil
		}
		start, end, ok := tableSpan(data, key, name)
		if !ok {
			return nil, false, fmt.Errorf("%s.%s is not written as a [%s.%s] table of its own: change it by hand", key, name, key, name)
		}
		out = splice(data, start, end, block)
	} else {
		out = bytes.Clone(data)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		if len(bytes.TrimSpace(out)) > 0 {
			out = append(out, '\n')
		}
		out = append(out, block...)
	}
	return out, true, checkTOML(doc, out, key, name, entry)
}

// tomlDisconnect removes the table [key.name] (and its sub-tables) from a
// TOML file's text, with the blank line before it.
func tomlDisconnect(data []byte, key, name string) ([]byte, bool, error) {
	doc, err := decodeTOML(data)
	if err != nil {
		return nil, false, err
	}
	if servers, _ := doc[key].(map[string]any); servers == nil || servers[name] == nil {
		return data, false, nil
	}
	start, end, ok := tableSpan(data, key, name)
	if !ok {
		return nil, false, fmt.Errorf("%s.%s is not written as a [%s.%s] table of its own: remove it by hand", key, name, key, name)
	}
	if start >= 2 && data[start-1] == '\n' && data[start-2] == '\n' && (end == len(data) || isBlankLineAt(data, end)) {
		start--
	}
	out := splice(data, start, end, "")
	return out, true, checkTOML(doc, out, key, name, nil)
}

func decodeTOML(data []byte) (map[string]any, error) {
	doc := map[string]any{}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w (fix it, then try again)", err)
	}
	return doc, nil
}

// bareKey is compiled on first use: every fledge start links this package.
var bareKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

func tomlKey(k string) string {
	if bareKey().MatchString(k) {
		return k
	}
	b, _ := toml.Marshal(map[string]string{"k": k})
	_, v, _ := strings.Cut(strings.TrimSpace(string(b)), " = ")
	return v
}

// tableSpan finds the lines of the table [key.name] and its sub-tables:
// from its header to the next other table's header, less the blank lines
// before that.
func tableSpan(data []byte, key, name string) (start, end int, ok bool) {
	header := regexp.MustCompile(`^\s*\[\s*` + keyPattern(key) + `\s*\.\s*` + keyPattern(name) + `\s*\]\s*(#.*)?$`)
	sub := regexp.MustCompile(`^\s*\[\[?\s*` + keyPattern(key) + `\s*\.\s*` + keyPattern(name) + `\s*\.`)
	lines := bytes.SplitAfter(data, []byte("\n"))
	off, start := 0, -1
	lastContent := 0
	for _, line := range lines {
		trimmed := bytes.TrimSpace(line)
		switch {
		case start < 0 && header.Match(bytes.TrimRight(line, "\r\n")):
			start, lastContent = off, off+len(line)
		case start >= 0 && bytes.HasPrefix(trimmed, []byte("[")) && !sub.Match(line):
			return start, lastContent, true
		case start >= 0 && len(trimmed) > 0:
			lastContent = off + len(line)
		}
		off += len(line)
	}
	if start < 0 {
		return 0, 0, false
	}
	return start, lastContent, true
}

// keyPattern matches a TOML key written bare or quoted.
func keyPattern(k string) string {
	q := regexp.QuoteMeta(k)
	return `(?:` + q + `|"` + q + `"|'` + q + `')`
}

func isBlankLineAt(data []byte, off int) bool {
	i := bytes.IndexByte(data[off:], '\n')
	if i < 0 {
		return isBlank(data[off:])
	}
	return isBlank(data[off : off+i])
}

func checkTOML(before map[string]any, out []byte, key, name string, want any) error {
	after := map[string]any{}
	if err := toml.Unmarshal(out, &after); err != nil {
		return fmt.Errorf("the edit would break the file (%v): change it by hand", err)
	}
	return checkDoc(before, after, key, name, want)
}
