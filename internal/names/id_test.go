package names

import (
	"strings"
	"testing"
)

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"ai_image": true, "memo": true, "a-b_c": true, "x1": true, "0day": true,
		"a": false, "a__b": false, "ab_": false, "_ab": false, "-ab": false, "AB": false,
		"a.b": false, "ai image": false, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": false,
	} {
		if ValidID(id) != want {
			t.Errorf("ValidID(%q) = %v", id, !want)
		}
	}
}

func FuzzValidID(f *testing.F) {
	f.Add("ai_image")
	f.Add("ab_")
	f.Fuzz(func(t *testing.T, id string) {
		if !ValidID(id) {
			return
		}
		// A tool's full name splits back into this id and the tool.
		if plugin, tool, _ := strings.Cut(id+"__"+"_x", "__"); plugin != id || tool != "_x" {
			t.Fatalf("%q__ splits as %q, %q", id, plugin, tool)
		}
	})
}
