package tools

import (
	"errors"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

func entries(names ...string) []Entry {
	out := make([]Entry, len(names))
	for i, n := range names {
		out[i] = Entry{Def: sdk.ToolDef{Name: n}, Handler: echo, Prompt: true}
	}
	return out
}

func pluginTools(r *Registry, plugin string) []string {
	var out []string
	for _, t := range r.List() {
		if t.Plugin == plugin {
			out = append(out, t.Local)
		}
	}
	return out
}

func TestReplaceSwapsThePluginsTools(t *testing.T) {
	r := NewRegistry()
	if _, err := r.Register("other", sdk.ToolDef{Name: "x"}, echo); err != nil {
		t.Fatal(err)
	}
	if _, errs := r.Replace("mcp-a", entries("keep", "drop")); len(errs) != 0 {
		t.Fatal(errs)
	}
	added, errs := r.Replace("mcp-a", append(entries("keep", "new", "new", "bad name"), Entry{Def: sdk.ToolDef{Name: "nil"}}))
	if len(added) != 2 {
		t.Errorf("added %d tools, want keep and new", len(added))
	}
	// "new" twice, "bad name", and the nil handler.
	if len(errs) != 3 {
		t.Errorf("errors %v, want 3", errs)
	}
	var dup bool
	for _, err := range errs {
		dup = dup || errors.Is(err, ErrDuplicate)
	}
	if !dup {
		t.Errorf("the second %q was not refused as a duplicate: %v", "new", errs)
	}
	if got := pluginTools(r, "mcp-a"); len(got) != 2 || got[0] != "keep" || got[1] != "new" {
		t.Errorf("tools after the swap: %v, want [keep new]", got)
	}
	if _, ok := r.Lookup("other__x"); !ok {
		t.Error("another plugin's tool went with the swap")
	}
	if _, ok := r.Lookup("mcp-a__keep"); !ok {
		t.Error("a kept tool is gone")
	}
	if _, ok := r.Lookup("mcp-a__drop"); ok {
		t.Error("a dropped tool is still there")
	}
	// A plugin cannot take another plugin's tool name by a swap.
	if _, err := r.Register("mcp-b", sdk.ToolDef{Name: "t"}, echo); err != nil {
		t.Fatal(err)
	}
	if _, errs := r.Replace("mcp-b", entries("t")); len(errs) != 0 {
		t.Errorf("replacing a plugin's own tool by itself: %v", errs)
	}
}

// TestReplaceIsOneChange lists the tools while a plugin's set is swapped
// back and forth: every listing has one whole set, never a part (the
// tool list sent to the model, and a call looked up meanwhile, must not
// miss a tool the server kept).
func TestReplaceIsOneChange(t *testing.T) {
	r := NewRegistry()
	a, b := entries("one", "two", "three"), entries("one", "two", "four", "five")
	if _, errs := r.Replace("mcp-x", a); len(errs) != 0 {
		t.Fatal(errs)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 200; i++ {
			set := b
			if i%2 == 1 {
				set = a
			}
			r.Replace("mcp-x", set)
		}
		close(stop)
	}()
	seen := 0
	for done := false; !done; {
		select {
		case <-stop:
			done = true
		default:
		}
		got := pluginTools(r, "mcp-x")
		if n := len(got); n != 3 && n != 4 {
			t.Fatalf("a listing during the swap has %d tools: %v", n, got)
		}
		if _, ok := r.Lookup("mcp-x__one"); !ok {
			t.Fatal("a tool both sets have was missing during the swap")
		}
		seen++
	}
	wg.Wait()
	if seen == 0 {
		t.Fatal("nothing was listed")
	}
}

// A tool kept from an earlier registration (Entry.Schema) is listed with
// that schema at once and checks its arguments at its first call; a
// schema that does not compile then refuses the call, never runs it.
func TestReplaceWithKeptSchemas(t *testing.T) {
	r := NewRegistry()
	good := []byte(`{"properties":{"n":{"minimum":1,"type":"integer"}},"required":["n"],"type":"object"}`)
	bad := []byte(`{"properties":{"n":{"type":7}},"type":"object"}`)
	_, errs := r.Replace("p", []Entry{
		{Def: sdk.ToolDef{Name: "good"}, Handler: echo, Prompt: true, Schema: good},
		{Def: sdk.ToolDef{Name: "bad"}, Handler: echo, Prompt: true, Schema: bad},
	})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	g, _ := r.Lookup("p__good")
	if string(g.Schema) != string(good) {
		t.Fatalf("listed schema %s", g.Schema)
	}
	if err := g.Validate(map[string]any{"n": 0.0}); err == nil {
		t.Fatal("an argument the kept schema forbids passed")
	}
	if err := g.Validate(map[string]any{"n": 2.0}); err != nil {
		t.Fatal(err)
	}
	b, _ := r.Lookup("p__bad")
	if err := b.Validate(map[string]any{"n": 2.0}); err == nil {
		t.Fatal("a kept schema that does not compile let a call through")
	}
	if _, errs := r.Replace("p", []Entry{{Def: sdk.ToolDef{Name: "x"}, Handler: echo, Schema: []byte(`not json`)}}); len(errs) != 1 {
		t.Fatalf("a kept schema that is not JSON: %v", errs)
	}
}
