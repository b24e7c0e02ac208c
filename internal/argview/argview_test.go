package argview

import (
	"reflect"
	"testing"
	"unicode"
)

func hidden(r rune) bool { return r < 0x20 || unicode.Is(unicode.Cf, r) }

func TestFieldsInOrderWithDuplicates(t *testing.T) {
	raw := `{"to":"bob","amo\u200bunt":5,"amount":6,"list":[1,{"x y":true}],"o":{},"e":[]}`
	got, err := Fields([]byte(raw), 0, hidden)
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{
		{Path: "to", Value: `"bob"`, Name: "to", Visible: "to"},
		{Path: "amo\u200bunt", Value: "5", Name: "amo\u200bunt", Visible: "amount", Dup: true},
		{Path: "amount", Value: "6", Name: "amount", Visible: "amount", Dup: true},
		{Path: "list[0]", Value: "1", Name: "list", Visible: "list[0]"},
		{Path: `list[1]."x y"`, Value: "true", Name: "x y", Visible: `list[1]."x y"`},
		{Path: "o", Value: "{}", Visible: "o"},
		{Path: "e", Value: "[]", Name: "e", Visible: "e"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestFieldsStopsPastMax(t *testing.T) {
	got, err := Fields([]byte(`{"a":[1,2,3,4,5],"b":1}`), 2, hidden)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d fields, want 3 (max+1): %+v", len(got), got)
	}
}

func TestFieldsRefusesNonObject(t *testing.T) {
	for _, raw := range []string{`[1]`, `"x"`, ``, `{"a":`} {
		if _, err := Fields([]byte(raw), 0, hidden); err == nil {
			t.Errorf("%q: no error", raw)
		}
	}
}

func FuzzFields(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,"x",{}]},"a\u200b":null}`), 3)
	f.Add([]byte(`{}`), 0)
	f.Fuzz(func(t *testing.T, raw []byte, max int) {
		fields, err := Fields(raw, max, hidden)
		if err != nil {
			return
		}
		if max > 0 && len(fields) > max+1 {
			t.Fatalf("%d fields past max %d", len(fields), max)
		}
		for _, f := range fields {
			if f.Path == "" || f.Value == "" {
				t.Fatalf("empty path or value: %+v", f)
			}
			if VisibleName(f.Visible, hidden) != f.Visible {
				t.Fatalf("visible path %q still hides characters", f.Visible)
			}
		}
	})
}
