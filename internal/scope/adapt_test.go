package scope_test

import (
	"errors"
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

// TestAdaptersGoroutines: a goroutine a handler starts acts in the
// handler's conversation while the handler runs, and once it has
// returned its writes are refused, never written in Global, and its
// reads act in Global.
func TestAdaptersGoroutines(t *testing.T) {
	m := &scopetest.Memory{}
	a := pluginAPIs(m, "plugA", false)
	g1 := scope.Chat("qq", "group:1")
	a.remember(t, "factGlobal")
	late := make(chan struct{})
	lateDone := make(chan []error)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the handler of a turn in group 1
		defer wg.Done()
		defer scope.Bind(g1)()
		var inner sync.WaitGroup
		inner.Add(1)
		go func() { // started by the handler, done before it returns
			defer inner.Done()
			var deeper sync.WaitGroup
			deeper.Add(1)
			go func() { defer deeper.Done(); a.remember(t, "factDeeper") }()
			deeper.Wait()
			a.remember(t, "factChild")
		}()
		inner.Wait()
		go func() { // runs on after the handler returned
			<-late
			var errs []error
			errs = append(errs, a.graph.Commit([]sdk.Triple{{Subject: "factLate", Relation: "is", Object: "x"}}))
			errs = append(errs, a.docs.Insert(&sdk.Doc{ID: "late", Content: "factLate"}))
			errs = append(errs, a.text.Append(sdk.TextEvent{Role: "user", Content: "factLate"}))
			errs = append(errs, a.kb.Add("late", "factLate"))
			_, err := a.graph.Purge(map[string]string{"name": "factChild"}, "hard")
			errs = append(errs, err)
			_, err = a.graph.MergeEntities("factChild", "factDeeper")
			errs = append(errs, err)
			a.docs.Remove("same-id")
			got := a.recall(t) // reads Global only
			if want := []string{"d:factGlobal", "g:factGlobal", "k:factGlobal"}; !slices.Equal(got, want) {
				t.Errorf("late goroutine recalls %q, want %q", got, want)
			}
			lateDone <- errs
		}()
	}()
	wg.Wait()
	close(late)
	for i, err := range <-lateDone {
		if !errors.Is(err, scope.ErrCallEnded) {
			t.Errorf("late write %d: %v, want ErrCallEnded", i, err)
		}
	}
	scopes := map[string]scope.Scope{}
	docs := 0
	for _, e := range m.Entries() {
		if e.Kind == "entity" {
			scopes[e.Key] = e.Scope
		}
		if e.Kind == "doc" && e.Scope == g1 {
			docs++
		}
		if e.Text == "factLate" || e.Key == "factLate" || e.Key == "late" {
			t.Errorf("a late write was stored: %+v", e)
		}
	}
	for _, fact := range []string{"factChild", "factDeeper"} {
		if scopes[fact] != g1 {
			t.Errorf("%s written by a goroutine of the handler in %q, want %q", fact, scopes[fact], g1)
		}
	}
	if docs != 1 { // factChild over factDeeper (same id); the late Remove did nothing
		t.Errorf("%d documents in group 1, want 1", docs)
	}
}
