package kernel

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hearth-agent/hearth/internal/hosttest"
	"github.com/hearth-agent/hearth/internal/knowledge"
	"github.com/hearth-agent/hearth/internal/memory"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// The services as one plugin gets them, standing in for the scoped ones
// (every entry is the bench's): what recall costs is the search, not
// the view.
type benchDocs struct{ sdk.DocMemoryAPI }

func (d benchDocs) Query(_ scope.View, text string, k int) []*sdk.Doc {
	return d.DocMemoryAPI.Query(text, k)
}
func (d benchDocs) Insert(_ scope.View, doc *sdk.Doc) error { return d.DocMemoryAPI.Insert(doc) }
func (d benchDocs) Remove(_ scope.View, id string)          { d.DocMemoryAPI.Remove(id) }
func (d benchDocs) Stats(scope.View) map[string]any         { return d.DocMemoryAPI.Stats() }

type benchGraph struct{ sdk.MemoryAPI }

func (g benchGraph) Recall(_ scope.View, q []string, depth int) ([]sdk.Entity, []sdk.Relation, error) {
	return g.MemoryAPI.Recall(q, depth)
}
func (g benchGraph) Commit(_ scope.View, t []sdk.Triple) error     { return g.MemoryAPI.Commit(t) }
func (g benchGraph) Introspect(scope.View) (map[string]any, error) { return g.MemoryAPI.Introspect() }
func (g benchGraph) MergeEntities(_ scope.View, s, t string) (int, error) {
	return g.MemoryAPI.MergeEntities(s, t)
}
func (g benchGraph) Purge(_ scope.View, c map[string]string, m string) (int, error) {
	return g.MemoryAPI.Purge(c, m)
}

type benchKB struct{ sdk.KnowledgeAPI }

func (k benchKB) Search(_ scope.View, q string, n int) ([]*sdk.Knowledge, error) {
	return k.KnowledgeAPI.Search(q, n)
}
func (k benchKB) Add(_ scope.View, name, content string) error {
	return k.KnowledgeAPI.Add(name, content)
}
func (k benchKB) List(scope.View) ([]string, error) { return k.KnowledgeAPI.List() }

// BenchmarkRecall is the host time recall adds to a turn: the lookup in
// doc memory, graph memory and knowledge base (2,000 facts, 2,000
// relations, 200 entries on a real SQLite file and folder), scoring,
// the budget and the message. "miss" is a message nothing matches;
// "hit-docs-knowledge" leaves the graph memory out.
func BenchmarkRecall(b *testing.B) {
	svc := hosttest.Services(b, "bench")
	for i := range 2000 {
		if err := svc.DocMemory.Insert(&sdk.Doc{ID: fmt.Sprintf("fact-%d", i), Title: "fact",
			Content: fmt.Sprintf("person%d likes drink%d and lives in city%d 住在城市%d", i, i%97, i%211, i%53)}); err != nil {
			b.Fatal(err)
		}
	}
	var triples []sdk.Triple
	for i := range 2000 {
		triples = append(triples, sdk.Triple{Subject: fmt.Sprintf("person%d", i), Relation: "likes", Object: fmt.Sprintf("drink%d", i%97)})
	}
	if err := svc.Memory.Commit(triples); err != nil {
		b.Fatal(err)
	}
	for i := range 200 {
		if err := svc.Knowledge.Add(fmt.Sprintf("note-%d", i), fmt.Sprintf("# Note %d\n\ncity%d has a river and a market.", i, i)); err != nil {
			b.Fatal(err)
		}
	}
	r := &MemoryRecaller{Graph: benchGraph{svc.Memory}, Docs: benchDocs{svc.DocMemory}, Knowledge: benchKB{svc.Knowledge}}
	v := recallView(scope.Owner)
	ctx := context.Background()
	noGraph := *r
	noGraph.Graph = nil
	for _, bc := range []struct {
		name, input string
		r           *MemoryRecaller
	}{
		{"hit", "what does person42 like to drink in city42?", r},
		{"hit-docs-knowledge", "what does person42 like to drink in city42?", &noGraph},
		{"miss", "tell me a joke about penguins", r},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := bc.r
			b.ReportAllocs()
			for b.Loop() {
				items, err := r.Recall(ctx, v, bc.input)
				if err != nil {
					b.Fatal(err)
				}
				_ = fitRecall(items, DefaultRecallTokens)
			}
		})
	}
}

// scopedServices are Hearth's own memory services on a real SQLite file
// and folder, as the app gives them to recall.
func scopedServices(b testing.TB) (*memory.Docs, *memory.Graph, *knowledge.Base) {
	dir := b.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	idx := search.NewIndex()
	docs, err := memory.NewDocs(ctx, st, idx)
	if err != nil {
		b.Fatal(err)
	}
	graph, err := memory.NewGraph(ctx, st, idx)
	if err != nil {
		b.Fatal(err)
	}
	kb, err := knowledge.Open(filepath.Join(dir, "knowledge"), &knowledge.Options{Index: idx})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { kb.Close() })
	return docs, graph, kb
}

// BenchmarkRecallTaint is the host time of a recalling turn's lookup
// and its taint check (whether the items kept were written by the
// owner), over the scoped services with the entries' owners: the owner's
// facts, relations and notes in the owner's scope (2,000, 2,000 and
// 200; HEARTH_BENCH_FULL=1 is not needed, the sizes are small).
func BenchmarkRecallTaint(b *testing.B) {
	docs, graph, kb := scopedServices(b)
	owner := scope.View{Write: scope.Owner, Read: []scope.Scope{scope.Owner}}
	for i := range 2000 {
		if err := docs.Insert(owner, &sdk.Doc{ID: fmt.Sprintf("fact-%d", i), Title: "fact",
			Content: fmt.Sprintf("person%d likes drink%d and lives in city%d 住在城市%d", i, i%97, i%211, i%53)}); err != nil {
			b.Fatal(err)
		}
	}
	var triples []sdk.Triple
	for i := range 2000 {
		triples = append(triples, sdk.Triple{Subject: fmt.Sprintf("person%d", i), Relation: "likes", Object: fmt.Sprintf("drink%d", i%97)})
	}
	if err := graph.Commit(owner, triples); err != nil {
		b.Fatal(err)
	}
	for i := range 200 {
		if err := kb.Add(owner, fmt.Sprintf("note-%d", i), fmt.Sprintf("# Note %d\n\ncity%d has a river and a market.", i, i)); err != nil {
			b.Fatal(err)
		}
	}
	r := &MemoryRecaller{Graph: graph, Docs: docs, Knowledge: kb}
	ctx := context.Background()
	const input = "what does person42 like to drink in city42?"
	b.ReportAllocs()
	for b.Loop() {
		got, err := r.Recall(ctx, recallView(scope.Owner), input)
		if err != nil {
			b.Fatal(err)
		}
		kept := fitRecall(got, DefaultRecallTokens)
		if len(kept) == 0 || recalledUntrusted(scope.Owner, got, kept) {
			b.Fatalf("the owner's entries: kept %d, counted untrusted", len(kept))
		}
	}
}
