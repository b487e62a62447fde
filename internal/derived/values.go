package derived

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AppendValue appends the encoding of the value ptr points to, a text of
// one line for derived files to hold; it fails for a value of a kind the
// encoding does not have, and for one that DecodeValue would not give back
// exactly (unexported fields are not encoded: a value must not depend on
// them). DecodeValue reads it back without encoding/json's reflective
// set-up, which a process pays on first use of each type: fledge's command
// index decodes one plugins.toml entry a run, and encoding/json took
// 115-190 µs in a fresh process against 8-9 µs here (one decode of the
// Rust layout's entry each way, in a fresh test process, on the shared
// 2-core machine).
//
// The encoding follows the Go types field by field, in declaration order,
// with no names: derived files are keyed on the fledge binary, so the
// binary that reads a value is the one that wrote it. Each value is one
// space-separated token or a run of them: a string as strconv.Quote writes
// it (so no tab or newline ever appears raw), a bool t or f, an integer in
// decimal, a nil slice, map or pointer "-", a slice or map its length then
// its elements (a map's keys sorted), a pointer "+" then its element, a
// struct its exported fields.
func AppendValue(b []byte, ptr any) ([]byte, error) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, errValueKind
	}
	start := len(b)
	b, err := appendValue(b, v.Elem())
	if err != nil {
		return nil, err
	}
	back := reflect.New(v.Type().Elem())
	if !DecodeValue(b[start:], back.Interface()) || !reflect.DeepEqual(back.Interface(), ptr) {
		return nil, errValueKind
	}
	return b, nil
}

// errValueKind is AppendValue's error for a value it cannot encode exactly.
var errValueKind = errors.New("derived: a value the encoding does not hold exactly")

// DecodeValue decodes data, which AppendValue wrote for a value of the
// type ptr points to, into it; ok is false for anything else, whole or in
// part (ptr may then hold part of it).
func DecodeValue(data []byte, ptr any) (ok bool) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	d := valueDecoder{s: string(data)}
	return d.value(v.Elem()) && d.s == ""
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
			return nil, errValueKind
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
	return nil, errValueKind
}

type valueDecoder struct{ s string }

// token returns the next space-separated token that is not a string.
func (d *valueDecoder) token() (string, bool) {
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

// quoted reads the next token, a string as strconv.Quote writes it.
func (d *valueDecoder) quoted() (string, bool) {
	rest, ok := strings.CutPrefix(d.s, " ")
	if !ok || !strings.HasPrefix(rest, `"`) {
		return "", false
	}
	// Most strings hold nothing Quote escapes: their text is their value
	// (what strconv.Unquote would return, scanning twice as much).
	if end := strings.IndexByte(rest[1:], '"'); end >= 0 {
		text := rest[1 : 1+end]
		if !strings.ContainsAny(text, "\\\n") && utf8.ValidString(text) {
			d.s = rest[end+2:]
			return text, true
		}
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", false
	}
	s, err := strconv.Unquote(q)
	if err != nil {
		return "", false
	}
	d.s = rest[len(q):]
	return s, true
}

// length reads a slice's or map's length, or "-" for nil; the length is
// bounded by what is left of the line, so a damaged one allocates nothing
// large.
func (d *valueDecoder) length() (n int, isNil, ok bool) {
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

func (d *valueDecoder) value(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		s, ok := d.quoted()
		if ok {
			v.SetString(s)
		}
		return ok
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
