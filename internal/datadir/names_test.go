package datadir

import (
	"strings"
	"testing"
)

// The names of folders already on disk: FileName must keep giving them,
// or the folders an earlier Hearth wrote would be lost.
var fileNames = []struct{ value, name string }{
	{"global", "global"},
	{"owner", "owner"},
	{"notes", "notes"},
	{"my-plugin_2", "my-plugin_2"},
	{"Notes", "%4Eotes"},
	{"chat:qq/group:1", "chat%3Aqq%2Fgroup%3A1"},
	{"user:tg/Alice", "user%3Atg%2F%41lice"},
	{"chat:matrix/!AbC:example.org", "chat%3Amatrix%2F%21%41b%43%3Aexample%2Eorg"},
	{"user:x/a b~%", "user%3Ax%2Fa%20b%7E%25"},
	{"长", "%E9%95%BF"},
	{".", "%2E"},
	{"", ""},
}

func TestFileName(t *testing.T) {
	for _, c := range fileNames {
		if got := FileName(c.value); got != c.name {
			t.Errorf("FileName(%q) = %q, want %q", c.value, got, c.name)
		}
		if got, ok := ParseFileName(c.name); !ok || got != c.value {
			t.Errorf("ParseFileName(%q) = %q %v, want %q", c.name, got, ok, c.value)
		}
	}
	for _, bad := range []string{"%4eotes", "%4", "%", "%G0", "Notes", "a%2", "%61"} {
		if got, ok := ParseFileName(bad); ok {
			t.Errorf("ParseFileName(%q) = %q, want refused", bad, got)
		}
	}
}

func FuzzFileName(f *testing.F) {
	for _, c := range fileNames {
		f.Add(c.value)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name := FileName(s)
		// Only lower-case letters, digits, '-', '_' and %XX: no
		// separator, no dot, no letter whose case a file system could
		// fold onto another value's.
		if strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-_%ABCDEF") != "" {
			t.Fatalf("FileName(%q) = %q", s, name)
		}
		if back, ok := ParseFileName(name); !ok || back != s {
			t.Fatalf("ParseFileName(FileName(%q)) = %q %v", s, back, ok)
		}
	})
}
