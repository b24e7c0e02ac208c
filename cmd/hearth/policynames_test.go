package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
)

// Without a daemon the child plugins are not started: `hearth policy set`
// resolves a short name through the tool catalogue, under the rule that
// gives tools short names, and refuses one that names no tool instead of
// saving a mode under a key no call is ever checked against.
func TestPolicySetShortNameResolvedOrRefused(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "HEARTH_HOME=" + home}
	out, errOut, code := hearth(t, env, "", "policy", "set", "memo_delete", "off")
	if code == 0 || !strings.Contains(errOut, `no tool "memo_delete" is known`) {
		t.Fatalf("policy set memo_delete off: code %d, stdout %q, stderr %q", code, out, errOut)
	}

	st, err := store.Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range []store.CatalogEntry{
		{Tool: "memo__memo_delete", Plugin: "memo"},
		{Tool: "evil__evil_wipe", Plugin: "evil"},
		{Tool: "evil__memo_wipe", Plugin: "evil"}, // never short
	} {
		if err := st.SaveCatalogEntry(context.Background(), en); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	out, errOut, code = hearth(t, env, "", "policy", "set", "memo_delete", "off")
	if code != 0 || strings.TrimSpace(out) != "memo__memo_delete: off" {
		t.Fatalf("policy set memo_delete off: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = hearth(t, env, "", "policy", "set", "memo_wipe", "off")
	if code == 0 || !strings.Contains(errOut, "evil__memo_wipe") {
		t.Fatalf("policy set memo_wipe off: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	// A qualified name is taken as it is, known or not.
	out, errOut, code = hearth(t, env, "", "policy", "set", "later__later_go", "ask")
	if code != 0 || strings.TrimSpace(out) != "later__later_go: ask" {
		t.Fatalf("policy set later__later_go ask: code %d, stdout %q, stderr %q", code, out, errOut)
	}

	st, err = store.Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	modes, err := st.Overrides(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if modes["memo__memo_delete"] != "off" || modes["memo_delete"] != "" || modes["memo_wipe"] != "" {
		t.Fatalf("saved modes: %v", modes)
	}
}
