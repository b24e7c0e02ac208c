package scope

import "github.com/hearth-agent/hearth/sdk"

// The adapters give one plugin HomeAgent's memory APIs, whose methods
// name no conversation, over the host's scoped services: each call acts
// in the view of writer in the conversation bound to the calling
// goroutine (Current; Global outside any turn). A goroutine a handler
// started that runs on after the handler returned reads in Global and
// may not write: its writes fail with ErrCallEnded (Docs.Remove, which
// returns no error, does nothing). shared is whether writer declared
// CapabilityShared. A nil service gives a nil API (the host then answers
// "unavailable").

// MemoryAPI returns writer's graph memory over g.
func MemoryAPI(g Graph, writer string, shared bool) sdk.MemoryAPI {
	if g == nil {
		return nil
	}
	return graphAPI{viewer{writer, shared}, g}
}

// DocMemoryAPI returns writer's document memory over d.
func DocMemoryAPI(d Docs, writer string, shared bool) sdk.DocMemoryAPI {
	if d == nil {
		return nil
	}
	return docsAPI{viewer{writer, shared}, d}
}

// TextMemoryAPI returns writer's text memory over t.
func TextMemoryAPI(t Text, writer string, shared bool) sdk.TextMemoryAPI {
	if t == nil {
		return nil
	}
	return textAPI{viewer{writer, shared}, t}
}

// KnowledgeAPI returns writer's knowledge base over k.
func KnowledgeAPI(k Knowledge, writer string, shared bool) sdk.KnowledgeAPI {
	if k == nil {
		return nil
	}
	return knowledgeAPI{viewer{writer, shared}, k}
}

// viewer makes the view of one call.
type viewer struct {
	writer string
	shared bool
}

// view is the view of a read.
func (w viewer) view() View { return For(w.writer, Current(), w.shared) }

// write is the view of a write, ErrCallEnded for a goroutine whose
// handler has returned.
func (w viewer) write() (View, error) {
	conv, ended := current()
	if ended {
		return View{}, ErrCallEnded
	}
	return For(w.writer, conv, w.shared), nil
}

type graphAPI struct {
	viewer
	g Graph
}

var _ sdk.MemoryAPI = graphAPI{}

func (a graphAPI) Recall(query []string, depth int) ([]sdk.Entity, []sdk.Relation, error) {
	return a.g.Recall(a.view(), query, depth)
}

func (a graphAPI) Commit(triples []sdk.Triple) error {
	v, err := a.write()
	if err != nil {
		return err
	}
	return a.g.Commit(v, triples)
}

func (a graphAPI) Introspect() (map[string]any, error) { return a.g.Introspect(a.view()) }

func (a graphAPI) MergeEntities(source, target string) (int, error) {
	v, err := a.write()
	if err != nil {
		return 0, err
	}
	return a.g.MergeEntities(v, source, target)
}

func (a graphAPI) Purge(criteria map[string]string, mode string) (int, error) {
	v, err := a.write()
	if err != nil {
		return 0, err
	}
	return a.g.Purge(v, criteria, mode)
}

type docsAPI struct {
	viewer
	d Docs
}

var _ sdk.DocMemoryAPI = docsAPI{}

func (a docsAPI) Query(text string, topK int) []*sdk.Doc { return a.d.Query(a.view(), text, topK) }
func (a docsAPI) Stats() map[string]any                  { return a.d.Stats(a.view()) }

func (a docsAPI) Insert(doc *sdk.Doc) error {
	v, err := a.write()
	if err != nil {
		return err
	}
	return a.d.Insert(v, doc)
}

func (a docsAPI) Remove(id string) {
	if v, err := a.write(); err == nil {
		a.d.Remove(v, id)
	}
}

type textAPI struct {
	viewer
	t Text
}

var _ sdk.TextMemoryAPI = textAPI{}

func (a textAPI) Append(evt sdk.TextEvent) error {
	v, err := a.write()
	if err != nil {
		return err
	}
	return a.t.Append(v, evt)
}

type knowledgeAPI struct {
	viewer
	k Knowledge
}

var _ sdk.KnowledgeAPI = knowledgeAPI{}

func (a knowledgeAPI) Search(query string, topK int) ([]*sdk.Knowledge, error) {
	return a.k.Search(a.view(), query, topK)
}

func (a knowledgeAPI) Add(name, content string) error {
	v, err := a.write()
	if err != nil {
		return err
	}
	return a.k.Add(v, name, content)
}

func (a knowledgeAPI) List() ([]string, error) { return a.k.List(a.view()) }
