package scope_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/scope/scopetest"
	"github.com/hearth-agent/hearth/sdk"
)

// apis are one plugin's four memory APIs over a shared store.
type apis struct {
	graph sdk.MemoryAPI
	docs  sdk.DocMemoryAPI
	text  sdk.TextMemoryAPI
	kb    sdk.KnowledgeAPI
}

func pluginAPIs(m *scopetest.Memory, writer string, shared bool) apis {
	return apis{scope.MemoryAPI(m, writer, shared), scope.DocMemoryAPI(m, writer, shared),
		scope.TextMemoryAPI(m, writer, shared), scope.KnowledgeAPI(m, writer, shared)}
}

// remember writes fact through all four APIs in the conversation bound
// to the calling goroutine.
func (a apis) remember(t *testing.T, fact string) {
	t.Helper()
	if err := a.graph.Commit([]sdk.Triple{{Subject: fact, Relation: "is", Object: fact + "-o"}}); err != nil {
		t.Fatal(err)
	}
	if err := a.docs.Insert(&sdk.Doc{ID: "same-id", Content: fact}); err != nil {
		t.Fatal(err)
	}
	if err := a.text.Append(sdk.TextEvent{Role: "user", Content: fact}); err != nil {
		t.Fatal(err)
	}
	if err := a.kb.Add("same-name", fact); err != nil {
		t.Fatal(err)
	}
}

// recall returns the facts a finds for "fact" through graph, docs and
// knowledge.
func (a apis) recall(t *testing.T) []string {
	t.Helper()
	var out []string
	ents, _, err := a.graph.Recall([]string{"fact"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !slices.Contains(out, e.Name) && e.Name[len(e.Name)-2:] != "-o" {
			out = append(out, "g:"+e.Name)
		}
	}
	for _, d := range a.docs.Query("fact", 10) {
		out = append(out, "d:"+d.Content)
	}
	ks, err := a.kb.Search("fact", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		out = append(out, "k:"+k.Content)
	}
	slices.Sort(out)
	return out
}

func TestAdaptersTwoPluginsTwoGroups(t *testing.T) {
	m := &scopetest.Memory{}
	a, b := pluginAPIs(m, "plugA", false), pluginAPIs(m, "plugB", false)
	g1, g2 := scope.Chat("qq", "group:1"), scope.Chat("qq", "group:2")
	in := func(s scope.Scope, fn func()) {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // each turn's handler on a goroutine of its own, as the kernel runs them
			defer wg.Done()
			defer scope.Bind(s)()
			fn()
		}()
		wg.Wait()
	}
	in(g1, func() { a.remember(t, "factA1") })
	in(g2, func() { a.remember(t, "factA2") })
	in(g1, func() { b.remember(t, "factB1") })
	a.remember(t, "factAglobal") // outside any turn: Global

	want := func(who string, got []string, facts ...string) {
		t.Helper()
		var w []string
		for _, f := range facts {
			w = append(w, "d:"+f, "g:"+f, "k:"+f)
		}
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("%s recalls %q, want %q", who, got, w)
		}
	}
	in(g1, func() { want("A in group 1", a.recall(t), "factA1", "factAglobal") })
	in(g2, func() { want("A in group 2", a.recall(t), "factA2", "factAglobal") })
	in(g1, func() { want("B in group 1", b.recall(t), "factB1") })
	in(g2, func() { want("B in group 2", b.recall(t)) })
	want("A outside", a.recall(t), "factAglobal")

	// B cannot remove or purge A's entries of the same id and name (it
	// removes its own document of that id).
	in(g1, func() {
		b.docs.Remove("same-id")
		if n, _ := b.graph.Purge(map[string]string{"name": "factA1"}, "hard"); n != 0 {
			t.Errorf("B purged %d of A's entities", n)
		}
	})
	in(g1, func() { want("A in group 1 after B's removals", a.recall(t), "factA1", "factAglobal") })

	// A plugin declaring memory.shared reads every writer's entries in
	// its conversation's scopes, and still changes none of them.
	s := pluginAPIs(m, "plugS", true)
	in(g1, func() {
		got := slices.DeleteFunc(s.recall(t), func(f string) bool { return f == "g:factB1" || f == "k:factB1" })
		want("shared in group 1", got, "factA1", "factAglobal")
		if n, _ := s.graph.Introspect(); n["entities"] != 6 { // A's 2+2 and B's 2 (subject and object)
			t.Errorf("shared sees %v entities", n["entities"])
		}
		s.docs.Remove("same-id")
		want("A after shared's removal", a.recall(t), "factA1", "factAglobal")
	})

	for _, e := range m.Entries() {
		if e.Kind == "text" && e.Scope == scope.Global && e.Text != "factAglobal" {
			t.Errorf("text of a turn stored in Global: %+v", e)
		}
	}
}

func TestAdaptersNil(t *testing.T) {
	if scope.MemoryAPI(nil, "p", false) != nil || scope.DocMemoryAPI(nil, "p", false) != nil ||
		scope.TextMemoryAPI(nil, "p", false) != nil || scope.KnowledgeAPI(nil, "p", false) != nil {
		t.Fatal("a nil service gives an API")
	}
}
