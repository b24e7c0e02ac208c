package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/memory"
	"github.com/hearth-agent/hearth/internal/scope"
	memoryplugin "github.com/hearth-agent/hearth/plugins/memory"
	"github.com/hearth-agent/hearth/sdk"
)

// What `hearth memory` reads and changes, in the owner's view of the
// whole memory (scope.Everything, or one scope with --scope): the
// document memory (where the agent's remembered facts live) and the
// graph memory's relations. This file is the command's one seam onto
// internal/memory.

// memoryEntry is one entry `hearth memory` shows.
type memoryEntry struct {
	Kind   string   `json:"kind"`            // "doc", "relation" or "entity"
	ID     string   `json:"id"`              // a document's id; a relation's "source|relation|target"; an entity's name
	Scope  string   `json:"scope"`           // global, owner, user:..., chat:...
	Writer string   `json:"writer"`          // the plugin that wrote it; "" for the owner and Hearth
	Title  string   `json:"title,omitempty"` // a document's title ("fact" for a remembered fact); an entity's type
	Text   string   `json:"text"`            // a document's content; a relation as "source relation target"
	Score  float64  `json:"score,omitzero"`  // search: relevance
	Links  []string `json:"links,omitempty"` // show of an entity: its relations
}

// errNoEntry is returned for an id that names nothing.
var errNoEntry = errors.New("no such memory entry")

// memoryData is the memory of an open app as the owner sees it.
type memoryData struct {
	a     *app.App
	scope scope.Scope // only this scope; "" for every one
}

// view is the owner's view, narrowed to d.scope when set.
func (d memoryData) view() scope.View {
	if d.scope == "" {
		return scope.Everything()
	}
	return scope.View{Write: d.scope, Read: []scope.Scope{d.scope}, AllWriters: true}
}

func relationID(r sdk.Relation) string {
	return r.SourceName + "|" + r.RelationType + "|" + r.TargetName
}

func relationEntry(r memory.RelationEntry) memoryEntry {
	return memoryEntry{Kind: "relation", ID: relationID(r.Relation), Scope: string(r.Scope), Writer: r.Writer, Text: kernel.RelationText(r.Relation)}
}

func docEntry(doc memory.DocEntry) memoryEntry {
	return memoryEntry{Kind: "doc", ID: doc.ID, Scope: string(doc.Scope), Writer: doc.Writer, Title: doc.Title,
		Text: doc.Content, Score: doc.Score}
}

// list returns up to limit documents, then up to limit relations.
func (d memoryData) list(ctx context.Context, limit int) ([]memoryEntry, error) {
	v := d.view()
	docs, _, err := d.a.Docs.List(ctx, v, 0, limit)
	if err != nil {
		return nil, fmt.Errorf("reading the document memory: %w", err)
	}
	out := make([]memoryEntry, 0, len(docs))
	for _, doc := range docs {
		out = append(out, docEntry(doc))
	}
	rels, _, err := d.a.Memory.Relations(ctx, v, "", 0, limit)
	if err != nil {
		return nil, fmt.Errorf("reading the graph memory: %w", err)
	}
	for _, r := range rels {
		out = append(out, relationEntry(r))
	}
	return out, nil
}

// search returns the documents best matching q, then the relations
// whose ends or kind contain one of its words.
func (d memoryData) search(ctx context.Context, q string, limit int) ([]memoryEntry, error) {
	v := d.view()
	docs, err := d.a.Docs.QueryEntries(ctx, v, q, limit)
	if err != nil {
		return nil, fmt.Errorf("searching the document memory: %w", err)
	}
	var out []memoryEntry
	for _, doc := range docs {
		out = append(out, docEntry(doc))
	}
	seen := map[string]bool{}
	for _, w := range strings.Fields(q) {
		rels, _, err := d.a.Memory.Relations(ctx, v, w, 0, limit)
		if err != nil {
			return nil, fmt.Errorf("reading the graph memory: %w", err)
		}
		for _, r := range rels {
			e := relationEntry(r)
			if key := e.ID + "\x00" + e.Scope + "\x00" + e.Writer; !seen[key] && len(seen) < limit {
				seen[key] = true
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// show returns the document id, or the relation id
// ("source|relation|target", as list prints it), or the entity id with
// its relations.
func (d memoryData) show(ctx context.Context, id string) (memoryEntry, error) {
	v := d.view()
	doc, err := d.a.Docs.Get(ctx, v, id)
	if err == nil {
		return docEntry(doc), nil
	}
	if !errors.Is(err, memory.ErrNoDoc) {
		return memoryEntry{}, ambiguous(err)
	}
	if parts := strings.Split(id, "|"); len(parts) == 3 {
		r := sdk.Relation{SourceName: parts[0], RelationType: parts[1], TargetName: parts[2]}
		e, err := d.relation(ctx, r)
		if err == nil || !errors.Is(err, errNoEntry) {
			return e, err
		}
		// An entity's name may hold "|" too.
	}
	e, rels, err := d.a.Memory.Entity(ctx, v, id)
	if errors.Is(err, memory.ErrNoEntity) {
		return memoryEntry{}, fmt.Errorf("%w: %q (show takes a document id, a relation's SOURCE|RELATION|TARGET or an entity's name, "+
			"as hearth memory list and search print them)", errNoEntry, id)
	}
	if err != nil {
		return memoryEntry{}, ambiguous(err)
	}
	out := memoryEntry{Kind: "entity", ID: e.Name, Scope: string(e.Scope), Writer: e.Writer, Title: e.Type, Text: e.Name}
	for _, r := range rels {
		out.Links = append(out.Links, kernel.RelationText(r.Relation))
	}
	return out, nil
}

// relationPage is how many relations relation reads at a time.
const relationPage = 200

// relation returns the relation r: errNoEntry if no scope or writer the
// view sees has it, memory.ErrAmbiguous if several do.
func (d memoryData) relation(ctx context.Context, r sdk.Relation) (memoryEntry, error) {
	var found []memoryEntry
	// Relations finds those whose kind or either end contains a word:
	// its source's name finds r among them.
	for offset := 0; ; offset += relationPage {
		page, total, err := d.a.Memory.Relations(ctx, d.view(), r.SourceName, offset, relationPage)
		if err != nil {
			return memoryEntry{}, fmt.Errorf("reading the graph memory: %w", err)
		}
		for _, e := range page {
			if e.Relation == r {
				found = append(found, relationEntry(e))
			}
		}
		if len(page) == 0 || offset+len(page) >= total {
			break
		}
	}
	switch len(found) {
	case 0:
		return memoryEntry{}, fmt.Errorf("%w: relation %q", errNoEntry, relationID(r))
	case 1:
		return found[0], nil
	}
	where := make([]string, len(found))
	for i, e := range found {
		where[i] = e.Scope
		if e.Writer != "" {
			where[i] += " (" + e.Writer + ")"
		}
	}
	return memoryEntry{}, ambiguous(fmt.Errorf("%w: relation %q is in %s", memory.ErrAmbiguous, relationID(r), strings.Join(where, ", ")))
}

// ambiguous adds what to do to an error naming several entries.
func ambiguous(err error) error {
	if errors.Is(err, memory.ErrAmbiguous) {
		return fmt.Errorf("%w (name one with --scope)", err)
	}
	return err
}

// forget deletes the document id, or the relation "source|relation|target",
// or the entity id with its relations; it returns the texts the agent may
// have been shown and no longer is, their scope ("" when it is not
// known: a relation found in every scope) and their writer ("" the
// owner's, or not known: a relation of every writer).
func (d memoryData) forget(ctx context.Context, id string) ([]string, scope.Scope, string, error) {
	v := d.view()
	doc, err := d.a.Docs.Get(ctx, v, id)
	switch {
	case err == nil:
		// Just it: the one document Get found, in its scope, of its writer.
		one := scope.View{Writer: doc.Writer, Write: doc.Scope, Read: []scope.Scope{doc.Scope}}
		if err := d.a.Docs.Delete(ctx, one, id); err != nil {
			return nil, "", "", err
		}
		return []string{doc.Content}, doc.Scope, doc.Writer, nil
	case !errors.Is(err, memory.ErrNoDoc):
		return nil, "", "", ambiguous(err)
	}
	if parts := strings.Split(id, "|"); len(parts) == 3 {
		r := sdk.Relation{SourceName: parts[0], RelationType: parts[1], TargetName: parts[2]}
		ok, err := d.a.Memory.DeleteRelation(ctx, v, r)
		if err != nil {
			return nil, "", "", err
		}
		if !ok {
			return nil, "", "", fmt.Errorf("%w: %q", errNoEntry, id)
		}
		return []string{kernel.RelationText(r)}, d.scope, "", nil
	}
	e, err := d.show(ctx, id)
	if err != nil {
		return nil, "", "", err
	}
	if err := d.a.Memory.Delete(ctx, v, id); err != nil {
		return nil, "", "", ambiguous(err)
	}
	return e.Links, scope.Scope(e.Scope), e.Writer, nil
}

// correct replaces the text of the document id, keeping its id, title,
// scope and writer; it returns the old text, the scope and the writer.
func (d memoryData) correct(ctx context.Context, id, text string) (string, scope.Scope, string, error) {
	doc, err := d.a.Docs.Get(ctx, d.view(), id)
	if errors.Is(err, memory.ErrNoDoc) {
		return "", "", "", fmt.Errorf("%w: %q (correct takes a document id; hearth memory search finds it)", errNoEntry, id)
	}
	if err != nil {
		return "", "", "", ambiguous(err)
	}
	old := doc.Content
	fixed := doc.Doc
	fixed.Content, fixed.Score = text, 0
	// Written back where it was: the owner's view of its scope, as its writer.
	v := scope.View{Writer: doc.Writer, Write: doc.Scope, Read: []scope.Scope{doc.Scope}}
	if err := d.a.Docs.Insert(v, &fixed); err != nil {
		return "", "", "", err
	}
	return old, doc.Scope, doc.Writer, nil
}

// add remembers fact as the memories plugin's remember tool does (a
// document titled "fact", its id from its text), as the owner's (writer
// ""), in scope sc; with a triple, the relation too. It returns the
// fact's entry.
func (d memoryData) add(ctx context.Context, sc scope.Scope, fact string, triple *sdk.Triple) (memoryEntry, error) {
	v := scope.View{Write: sc, Read: []scope.Scope{sc}}
	doc := sdk.Doc{ID: memoryplugin.FactID(fact), Title: memoryplugin.FactTitle, Content: fact}
	// The same words remembered before are the same document: it is not
	// this add's to take back.
	_, err := d.a.Docs.Get(ctx, v, doc.ID)
	existed := err == nil
	if err != nil && !errors.Is(err, memory.ErrNoDoc) {
		return memoryEntry{}, fmt.Errorf("remembering: %w", err)
	}
	if err := d.a.Docs.Insert(v, &doc); err != nil {
		return memoryEntry{}, fmt.Errorf("remembering: %w", err)
	}
	if triple != nil {
		if err := d.a.Memory.Commit(v, []sdk.Triple{*triple}); err != nil {
			// A fact half remembered is not remembered: take the document
			// back, unless it was there before.
			if existed {
				return memoryEntry{}, fmt.Errorf("remembering the relation: %w", err)
			}
			if err2 := d.a.Docs.Delete(ctx, v, doc.ID); err2 != nil {
				err = errors.Join(err, fmt.Errorf("taking the fact back: %w", err2))
			}
			return memoryEntry{}, fmt.Errorf("remembering the relation: %w", err)
		}
	}
	return memoryEntry{Kind: "doc", ID: doc.ID, Scope: string(sc), Title: doc.Title, Text: fact}, nil
}
