package derived

import (
	"reflect"
	"strings"
	"testing"
)

// every holds each kind the value encoding has.
type every struct {
	S     string
	B     bool
	I     int
	I8    int8
	L     []string
	Empty []string
	Nil   []string
	M     map[string]string
	NilM  map[string]string
	P     *every
	Inner []inner
	IM    map[string]inner
}

type inner struct {
	N string
	F bool
}

func everyValue() *every {
	return &every{
		S: "quote \" back \\ tab \t newline \n nul \x00 invalid \xff line sep \u2028 é", B: true, I: -42, I8: 7,
		L: []string{"a", "", "b c"}, Empty: []string{}, M: map[string]string{"z": "1", "a": "", "m m": "\n"},
		P:     &every{S: "inner", NilM: nil, M: map[string]string{}},
		Inner: []inner{{N: "x", F: true}, {}},
		IM:    map[string]inner{"k": {N: "v"}},
	}
}

// What AppendValue writes decodes to exactly the value, on one line, and
// the same value always encodes alike (map keys sorted).
func TestValueRoundTrip(t *testing.T) {
	v := everyValue()
	b, err := AppendValue(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(string(b), "\t\n") {
		t.Fatalf("a tab or newline in the encoding: %q", b)
	}
	var back every
	if !DecodeValue(b, &back) || !reflect.DeepEqual(&back, v) {
		t.Fatalf("decoded %+v\nfrom %s", back, b)
	}
	for range 20 {
		if again, _ := AppendValue(nil, everyValue()); string(again) != string(b) {
			t.Fatalf("two encodings of one value:\n%s\n%s", b, again)
		}
	}
}

// Every cut, and bytes added, make the encoding unreadable, never a
// different value.
func TestValueDamaged(t *testing.T) {
	b, err := AppendValue(nil, everyValue())
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(b) {
		var e every
		if DecodeValue(b[:i], &e) {
			t.Fatalf("a cut at %d decoded: %s", i, b[:i])
		}
	}
	for _, extra := range []string{" t", " ", "x", ` "s"`} {
		var e every
		if DecodeValue(append(append([]byte{}, b...), extra...), &e) {
			t.Fatalf("trailing %q decoded", extra)
		}
	}
	// A length larger than what is left allocates nothing and fails.
	var l struct{ L []string }
	if DecodeValue([]byte(" 99999999999"), &l) || DecodeValue([]byte(" 5 \"a\""), &l) {
		t.Fatal("an impossible length decoded")
	}
}

// A value the encoding cannot give back exactly is refused: a kind it
// does not have, or one that holds an unexported field.
func TestValueRefusesWhatItCannotKeep(t *testing.T) {
	if _, err := AppendValue(nil, &struct{ F float64 }{1.5}); err == nil {
		t.Error("a float was encoded")
	}
	if _, err := AppendValue(nil, &struct{ M map[int]string }{map[int]string{1: "a"}}); err == nil {
		t.Error("a map with int keys was encoded")
	}
	if _, err := AppendValue(nil, &struct {
		S      string
		hidden string
	}{"a", "b"}); err == nil {
		t.Error("a value whose unexported field is set was encoded")
	}
	if _, err := AppendValue(nil, "not a pointer"); err == nil {
		t.Error("a non-pointer was encoded")
	}
}

func FuzzDecodeValue(f *testing.F) {
	b, _ := AppendValue(nil, everyValue())
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var e every
		if !DecodeValue(data, &e) {
			return
		}
		// What decodes encodes, and that decodes to the same value (the
		// bytes may differ: "007" reads as 7).
		again, err := AppendValue(nil, &e)
		if err != nil {
			t.Fatalf("decoded %q, cannot re-encode it: %v", data, err)
		}
		var back every
		if !DecodeValue(again, &back) || !reflect.DeepEqual(back, e) {
			t.Fatalf("decoded %q to %+v, then %q to %+v", data, e, again, back)
		}
	})
}
