package config

import (
	"slices"
	"strings"
	"testing"
)

func TestMaskArgs(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"-y", "@modelcontextprotocol/server-postgres", "postgres://u:pw-secret@h:5432/db"},
			[]string{"-y", "@modelcontextprotocol/server-postgres", "postgres://u:***@h:5432/db"}},
		{[]string{"--token", "tok-secret", "--api-key=key-secret", "--verbose", "/tmp"},
			[]string{"--token", "***", "--api-key=***", "--verbose", "/tmp"}},
		{[]string{"--CLIENT_SECRET", "s", "--db-password=x", "-k"}, []string{"--CLIENT_SECRET", "***", "--db-password=***", "-k"}},
		{[]string{"--url=https://h/mcp?key=q-secret&x=1"}, []string{"--url=https://h/mcp?key=***&x=***"}},
		{[]string{"https://user@h/path"}, []string{"https://user@h/path"}},
		{[]string{"mysql://u:p%zz@h/db"}, []string{"mysql://***@h/db"}},
		{[]string{"--token"}, []string{"--token"}},
		{nil, []string{}},
	} {
		if got := MaskArgs(c.in); !slices.Equal(got, c.want) {
			t.Errorf("MaskArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzMaskArgs(f *testing.F) {
	f.Add("--token", "postgres://u:pw@h/db?k=v")
	f.Add("--api-key=abc", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		got := MaskArgs([]string{a, b})
		if len(got) != 2 {
			t.Fatalf("%d args out of 2", len(got))
		}
		if secretFlag(a) && !strings.Contains(a, "=") && a != "-" && a != "--" && strings.HasPrefix(a, "-") && got[1] != masked {
			t.Fatalf("the value of %q shown: %q", a, got[1])
		}
	})
}
