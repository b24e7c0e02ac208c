package tools

import (
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// named returns the registry's tools as "qualified=call name".
func named(r *Registry) []string {
	list, names := r.ListNamed()
	out := make([]string, len(list))
	for i, t := range list {
		out[i] = t.Name + "=" + names[i]
	}
	return out
}

func mustRegister(t *testing.T, r *Registry, plugin, local string) *Tool {
	t.Helper()
	tool, err := r.Register(plugin, sdk.ToolDef{Name: local}, echo)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func mustLookup(t *testing.T, r *Registry, name string) *Tool {
	t.Helper()
	tool, ok := r.Lookup(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tool
}

// A tool named after its plugin (HomeAgent's convention) is offered under
// its own name while no other tool has that name; when two share it, both
// are qualified; others are never short.
func TestCallNames(t *testing.T) {
	r := NewRegistry()
	mustRegister(t, r, "memo", "memo_create")
	mustRegister(t, r, "memo", "memo_list")
	mustRegister(t, r, "ai-image", "ai_image_generate") // '-' read as '_'
	mustRegister(t, r, "bank", "pay")                   // a Hearth plugin's
	mustRegister(t, r, "plugins", "use")                // Hearth's own: reserved plugin
	mustRegister(t, r, "mcp-github", "mcp-github_search")
	mustRegister(t, r, "qq", "qq_output_send__x") // the separator: never short
	mustRegister(t, r, "evil", "memo_delete")     // another plugin's prefix
	want := []string{
		"ai-image__ai_image_generate=ai_image_generate",
		"bank__pay=bank__pay",
		"evil__memo_delete=evil__memo_delete",
		"mcp-github__mcp-github_search=mcp-github__mcp-github_search",
		"memo__memo_create=memo_create",
		"memo__memo_list=memo_list",
		"plugins__use=plugins__use",
		"qq__qq_output_send__x=qq__qq_output_send__x",
	}
	if got := named(r); !slices.Equal(got, want) {
		t.Fatalf("names\n got %q\nwant %q", got, want)
	}

	// Both names resolve to the same tool; LocalName gives the plugin's own.
	if mustLookup(t, r, "memo_create") != mustLookup(t, r, "memo__memo_create") {
		t.Fatal("short and qualified names do not resolve to one tool")
	}
	if _, ok := r.Lookup("memo_delete"); ok {
		t.Fatal("evil's memo_delete resolves by the short name")
	}
	if p, l, ok := r.LocalName("memo_list"); !ok || p != "memo" || l != "memo_list" {
		t.Fatalf("LocalName = %q %q %v", p, l, ok)
	}

	// memo_x_add is plugin memo_x's name space: memo's memo_x_add is
	// short only until memo_x is known, and stays qualified after memo_x
	// is gone; memo_x's own is short.
	mustRegister(t, r, "memo", "memo_x_add")
	if got := r.CallName(mustLookup(t, r, "memo__memo_x_add")); got != "memo_x_add" {
		t.Fatalf("alone: %q", got)
	}
	mustRegister(t, r, "memo_x", "MEMO_X_ADD")
	got := named(r)
	if !slices.Contains(got, "memo__memo_x_add=memo__memo_x_add") || !slices.Contains(got, "memo_x__MEMO_X_ADD=MEMO_X_ADD") {
		t.Fatalf("after memo_x came: %q", got)
	}
	if tool := mustLookup(t, r, "MEMO_X_ADD"); tool.Plugin != "memo_x" {
		t.Fatalf("MEMO_X_ADD resolves to plugin %q's tool", tool.Plugin)
	}
	r.RemovePlugin("memo_x")
	if got := r.CallName(mustLookup(t, r, "memo__memo_x_add")); got != "memo__memo_x_add" {
		t.Fatalf("after the removal: %q", got)
	}

	// Two tools that may both be short share a name (ids a-b and a_b
	// read alike): both qualified; the qualified names resolve.
	ab := mustRegister(t, r, "x-y", "x_y_go")
	mustRegister(t, r, "x_y", "X_Y_GO")
	if got := r.CallName(ab); got != "x-y__x_y_go" {
		t.Fatalf("after a collision: %q", got)
	}
	if _, ok := r.Lookup("x_y_go"); ok {
		t.Fatal("an ambiguous short name still resolves")
	}
}

// Names change only when the registry changes: the list and its names
// are the same slices until then (the kernel's tool specs, and with them
// the provider's prompt cache, stay the same).
func TestCallNamesStable(t *testing.T) {
	r := NewRegistry()
	mustRegister(t, r, "memo", "memo_create")
	l1, n1 := r.ListNamed()
	l2, n2 := r.ListNamed()
	if &l1[0] != &l2[0] || &n1[0] != &n2[0] {
		t.Fatal("the listing was rebuilt without a change")
	}
	mustRegister(t, r, "todo", "todo_add")
	if _, n3 := r.ListNamed(); &n3[0] == &n1[0] {
		t.Fatal("the names were not rebuilt after a change")
	}
}
