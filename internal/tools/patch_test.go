package tools

import (
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// Patch replaces and drops the named tools of one plugin only, keeps the
// others as they were (the same *Tool), and never withdraws another
// plugin's tool.
func TestPatchChangesOnlyTheNamedTools(t *testing.T) {
	r := NewRegistry()
	if _, errs := r.Replace("p", entries("a", "b", "c")); len(errs) != 0 {
		t.Fatal(errs)
	}
	if _, err := r.Register("other", sdk.ToolDef{Name: "x"}, echo); err != nil {
		t.Fatal(err)
	}
	a, _ := r.Lookup("p__a")
	oldB, _ := r.Lookup("p__b")
	added, errs := r.Patch("p", []string{"c", "x", "never"}, entries("b", "d"))
	if len(errs) != 0 || len(added) != 2 {
		t.Fatalf("added %d, errors %v", len(added), errs)
	}
	if got := pluginTools(r, "p"); !slices.Equal(got, []string{"a", "b", "d"}) {
		t.Fatalf("p's tools %v", got)
	}
	if got, _ := r.Lookup("p__a"); got != a {
		t.Error("a was built again")
	}
	if got, _ := r.Lookup("p__b"); got == oldB {
		t.Error("b was not replaced")
	}
	if _, ok := r.Lookup("other__x"); !ok {
		t.Error("p's drop of x withdrew other's tool")
	}
	if _, errs := r.Patch("p", nil, entries("bad name")); len(errs) != 1 {
		t.Fatalf("bad name: %v", errs)
	}
}
