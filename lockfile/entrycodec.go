package lockfile

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The command index stores each entry in the encoding below rather than
// JSON: a run decodes one entry, and encoding/json first builds its
// decoder for Plugin and every type inside it by reflection, 150-180 µs in
// a fresh process (more than the rest of the lookup), against 8-9 µs here
// (one decode of the Rust layout's entry, each way, in a fresh test
// process, on the shared 2-core machine).
// FuzzCommandIndex holds that an entry decodes back to exactly what Parse
// gave, and buildIndex stores no entry that would not.
//
// The encoding follows the Go types field by field, in declaration order,
// with no names: the index is keyed on the fledge binary (package
// derived), so the binary that reads an entry is the one that wrote it.
// Each value is one space-separated token or a run of them: a string as
// strconv.Quote writes it (so no tab or newline, which delimit index
// lines, ever appears raw), a bool t or f, an integer in decimal, a nil
// slice, map or pointer "-", a slice or map its length then its elements
// (a map's keys sorted), a pointer "+" then its element, a struct its
// exported fields. Of the unexported fields, the entry ends with the one
// Parse sets from the file around it (everyone: confinement turned off
// for every plugin), which the JSON entries lost, so every run after the
// first forgot an unconfine --all.

// errEntryType is returned for a field of a kind the encoding does not
// have: buildIndex then writes no index, and lookups decode the file.
var errEntryType = errors.New("command index: a plugins.toml field of a kind the entry encoding does not have")

// appendEntry appends p's encoding.
func appendEntry(b []byte, p *Plugin) ([]byte, error) {
	b, err := appendValue(b, reflect.ValueOf(p).Elem())
	if err != nil {
		return nil, err
	}
	return appendValue(b, reflect.ValueOf(p.everyone))
}

func appendValue(b []byte, v reflect.Value) ([]byte, error) {
	switch v.Kind() {
	case reflect.String:
		return strconv.AppendQuote(append(b, ' '), v.String()), nil
	case reflect.Bool:
		if v.Bool() {
			return append(b, " t"...), nil
		}
		return append(b, " f"...), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(append(b, ' '), v.Int(), 10), nil
	case reflect.Slice:
		if v.IsNil() {
			return append(b, " -"...), nil
		}
		b = strconv.AppendInt(append(b, ' '), int64(v.Len()), 10)
		var err error
		for i := 0; i < v.Len() && err == nil; i++ {
			b, err = appendValue(b, v.Index(i))
		}
		return b, err
	case reflect.Map:
		if v.IsNil() {
			return append(b, " -"...), nil
		}
		if v.Type().Key().Kind() != reflect.String {
			return nil, errEntryType
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
		b = strconv.AppendInt(append(b, ' '), int64(len(keys)), 10)
		var err error
		for _, k := range keys {
			if b, err = appendValue(b, k); err == nil {
				b, err = appendValue(b, v.MapIndex(k))
			}
			if err != nil {
				return nil, err
			}
		}
		return b, nil
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, " -"...), nil
		}
		return appendValue(append(b, " +"...), v.Elem())
	case reflect.Struct:
		var err error
		for i := 0; i < v.NumField() && err == nil; i++ {
			if f := v.Field(i); f.CanInterface() {
				b, err = appendValue(b, f)
			}
		}
		return b, err
	}
	return nil, errEntryType
}

// decodeEntry decodes an entry appendEntry wrote; ok is false for
// anything else, whole or in part.
func decodeEntry(line []byte) (p *Plugin, ok bool) {
	d := entryDecoder{s: string(line)}
	var e Plugin
	if !d.value(reflect.ValueOf(&e).Elem()) || !d.value(reflect.ValueOf(&e.everyone).Elem()) || d.s != "" {
		return nil, false
	}
	return &e, true
}

type entryDecoder struct{ s string }

// token returns the next space-separated token that is not a string.
func (d *entryDecoder) token() (string, bool) {
	rest, ok := strings.CutPrefix(d.s, " ")
	if !ok {
		return "", false
	}
	end := strings.IndexByte(rest, ' ')
	if end < 0 {
		end = len(rest)
	}
	d.s = rest[end:]
	return rest[:end], true
}

// length reads a slice's or map's length, or "-" for nil; the length is
// bounded by what is left of the line, so a damaged one allocates nothing
// large.
func (d *entryDecoder) length() (n int, isNil, ok bool) {
	tok, ok := d.token()
	if !ok {
		return 0, false, false
	}
	if tok == "-" {
		return 0, true, true
	}
	n, err := strconv.Atoi(tok)
	if err != nil || n < 0 || n > len(d.s)/2 {
		return 0, false, false
	}
	return n, false, true
}

func (d *entryDecoder) value(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		rest, ok := strings.CutPrefix(d.s, " ")
		if !ok {
			return false
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil || q[0] != '"' {
			return false
		}
		s, err := strconv.Unquote(q)
		if err != nil {
			return false
		}
		d.s = rest[len(q):]
		v.SetString(s)
		return true
	case reflect.Bool:
		tok, ok := d.token()
		if !ok || tok != "t" && tok != "f" {
			return false
		}
		v.SetBool(tok == "t")
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		tok, ok := d.token()
		if !ok {
			return false
		}
		n, err := strconv.ParseInt(tok, 10, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetInt(n)
		return true
	case reflect.Slice:
		n, isNil, ok := d.length()
		if !ok || isNil {
			return ok
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			if !d.value(v.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		n, isNil, ok := d.length()
		if !ok || isNil {
			return ok
		}
		t := v.Type()
		m := reflect.MakeMapWithSize(t, n)
		for range n {
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			if !d.value(k) || !d.value(e) {
				return false
			}
			m.SetMapIndex(k, e)
		}
		v.Set(m)
		return true
	case reflect.Pointer:
		tok, ok := d.token()
		switch {
		case !ok:
			return false
		case tok == "-":
			return true
		case tok != "+":
			return false
		}
		e := reflect.New(v.Type().Elem())
		if !d.value(e.Elem()) {
			return false
		}
		v.Set(e)
		return true
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() && !d.value(f) {
				return false
			}
		}
		return true
	}
	return false
}
