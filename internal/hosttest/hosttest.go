// Package hosttest gives a plugin under test Hearth's own services, for
// Hearth's tests: Services, on a temporary database, for
// sdktest.Options.Services. Plugin authors use sdk/sdktest alone, which
// links none of this (no SQLite); its tool calls and stage handlers take
// Hearth's own paths already (sdk/toolcall, sdk/pipeline).
//
// It lives under internal/ because it is made of Hearth's internals.
package hosttest

import (
	"context"
	"path/filepath"

	"github.com/hearth-agent/hearth/internal/knowledge"
	"github.com/hearth-agent/hearth/internal/memory"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

// Services returns Hearth's own services on a database and folders in a
// temporary directory of t, for sdktest.Options.Services: settings, KV,
// the graph, text and document memory, and the knowledge base, as a
// plugin gets them in Hearth (for the plugin named name). The database
// closes at cleanup.
func Services(t sdktest.T, name string) host.Services {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("hosttest: opening a store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	idx := search.NewIndex()
	docs, err := memory.NewDocs(context.Background(), st, idx)
	if err != nil {
		t.Fatalf("hosttest: document memory: %v", err)
	}
	graph, err := memory.NewGraph(context.Background(), st, idx)
	if err != nil {
		t.Fatalf("hosttest: graph memory: %v", err)
	}
	text, err := memory.NewText(filepath.Join(dir, "memory", "text"))
	if err != nil {
		t.Fatalf("hosttest: text memory: %v", err)
	}
	kb, err := knowledge.Open(filepath.Join(dir, "knowledge"), &knowledge.Options{Index: idx})
	if err != nil {
		t.Fatalf("hosttest: knowledge base: %v", err)
	}
	t.Cleanup(func() { kb.Close() })
	svc := settings.New(st, dir)
	return host.Services{
		Settings: svc.For(name), KV: svc.KV(name),
		// As Hearth gives them to a plugin: its own entries, in the
		// conversation bound to the calling goroutine (none under sdktest:
		// global).
		Memory: scope.MemoryAPI(graph, name, false), TextMemory: scope.TextMemoryAPI(text, name, false),
		DocMemory: scope.DocMemoryAPI(docs, name, false), Knowledge: scope.KnowledgeAPI(kb, name, false),
	}
}
