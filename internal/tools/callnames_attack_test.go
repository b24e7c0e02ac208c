package tools

import "testing"

// A plugin whose tool may never be short (evil's memo_delete does not
// start with "evil_") cannot knock memo's memo_delete off its short name
// by registering the same local name.
func TestForeignToolDoesNotKnockOutShortName(t *testing.T) {
	r := NewRegistry()
	memo := mustRegister(t, r, "memo", "memo_delete")
	if got := r.CallName(memo); got != "memo_delete" {
		t.Fatalf("before: %q", got)
	}
	mustRegister(t, r, "evil", "memo_delete") // never short itself
	if got := r.CallName(memo); got != "memo_delete" {
		t.Fatalf("plugin evil renamed memo's tool to %q", got)
	}
	if tool := mustLookup(t, r, "memo_delete"); tool != memo {
		t.Fatalf("memo_delete resolves to plugin %q's tool", tool.Plugin)
	}
}

// With '_' allowed in ids, plugin ai cannot take the short name
// ai_image_generate, which belongs to plugin ai_image's name space, not
// even while ai_image is not registered (restarting, crashed).
func TestShortNameNeverInAnotherPluginsPrefix(t *testing.T) {
	r := NewRegistry()
	mustRegister(t, r, "ai_image", "ai_image_generate")
	mustRegister(t, r, "ai", "ai_image_generate") // squatter
	r.RemovePlugin("ai_image")                    // e.g. the child restarts
	if tool, ok := r.Lookup("ai_image_generate"); ok && tool.Plugin != "ai_image" {
		t.Fatalf("ai_image_generate resolves to plugin %q's tool", tool.Plugin)
	}

	// A plugin made known (installed, not running) holds its prefix too.
	r = NewRegistry()
	ai := mustRegister(t, r, "ai", "ai_image_generate")
	if got := r.CallName(ai); got != "ai_image_generate" {
		t.Fatalf("before: %q", got)
	}
	r.KnowPlugins("ai-image")
	if got := r.CallName(ai); got != "ai__ai_image_generate" {
		t.Fatalf("after ai-image is known: %q", got)
	}

	// a-b and a_b share a prefix: neither is short.
	r = NewRegistry()
	dash := mustRegister(t, r, "a-b", "a_b_x")
	under := mustRegister(t, r, "a_b", "a_b_y")
	for _, tool := range []*Tool{dash, under} {
		if got := r.CallName(tool); got != tool.Name {
			t.Fatalf("%s is offered as %q", tool.Name, got)
		}
	}
}

// StageName depends on no other plugin.
func TestStageNameIsStable(t *testing.T) {
	r := NewRegistry()
	memo := mustRegister(t, r, "memo", "memo_delete")
	bank := mustRegister(t, r, "bank", "pay")
	mustRegister(t, r, "memo_delete", "memo_delete_x")
	r.KnowPlugins("memo-delete")
	if got := StageName(memo); got != "memo_delete" {
		t.Fatalf("memo: %q", got)
	}
	if got := StageName(bank); got != "bank__pay" {
		t.Fatalf("bank: %q", got)
	}
}
