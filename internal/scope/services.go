package scope

import "github.com/hearth-agent/hearth/sdk"

// The memory services as the host keeps them: every method takes the
// caller's View. The SDK's interfaces (sdk.MemoryAPI and the others) are
// these with the view filled in from the calling context, per plugin.

// Graph is the graph memory.
type Graph interface {
	Recall(v View, query []string, depth int) ([]sdk.Entity, []sdk.Relation, error)
	Commit(v View, triples []sdk.Triple) error
	Introspect(v View) (map[string]any, error)
	MergeEntities(v View, source, target string) (int, error)
	Purge(v View, criteria map[string]string, mode string) (int, error)
}

// Docs is the document memory.
type Docs interface {
	Query(v View, text string, topK int) []*sdk.Doc
	Insert(v View, doc *sdk.Doc) error
	Remove(v View, id string)
	Stats(v View) map[string]any
}

// Text is the text memory.
type Text interface {
	Append(v View, evt sdk.TextEvent) error
}

// Knowledge is the knowledge base.
type Knowledge interface {
	Search(v View, query string, topK int) ([]*sdk.Knowledge, error)
	Add(v View, name, content string) error
	List(v View) ([]string, error)
}
