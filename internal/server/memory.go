package server

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/memory"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// The agent's memory as the owner browses and corrects it: the graph
// memory (entities, named by their name, and relations) and the document
// memory. Every entry belongs to a scope ("global", "owner",
// "user:<channel>/<id>", "chat:<channel>/<chat>") and a writer (the
// plugin that wrote it, "" for the owner and Hearth), which the answers
// show. Every route works on the whole memory unless ?scope= narrows it
// to one scope and ?writer= to one writer's entries. A name or id that
// several scopes or writers have is answered 409 "ambiguous" by the
// routes that act on one entry: name the scope and the writer.

// Paging: ?offset= (default 0) and ?limit= (default 50, at most 500).
const (
	defaultLimit = 50
	maxLimit     = 500
)

// MemoryStats is GET /v1/memory's answer.
type MemoryStats struct {
	Entities        int `json:"entities"`
	Relations       int `json:"relations"`
	PurgedEntities  int `json:"purged_entities"`  // purged softly: hidden until mentioned again
	PurgedRelations int `json:"purged_relations"` // purged softly
	Documents       int `json:"documents"`
}

// Entity is a thing the agent remembers.
type Entity struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Mentions int    `json:"mentions"`
	Scope    string `json:"scope"`  // whose conversations it belongs to
	Writer   string `json:"writer"` // the plugin that wrote it; "" for the owner and Hearth
}

// Relation links two entities: source relation target.
type Relation struct {
	Source   string `json:"source"`
	Relation string `json:"relation"`
	Target   string `json:"target"`
	Scope    string `json:"scope"`
	Writer   string `json:"writer"`
}

// EntityPage is GET /v1/memory/entities's answer.
type EntityPage struct {
	Entities []Entity `json:"entities"`
	Total    int      `json:"total"`
	Offset   int      `json:"offset"`
	Limit    int      `json:"limit"`
}

// EntityDetail is an entity with its relations.
type EntityDetail struct {
	Entity    Entity     `json:"entity"`
	Relations []Relation `json:"relations"`
}

// EntityEdit is PATCH /v1/memory/entities/{name}'s body: what to change.
type EntityEdit struct {
	Name *string `json:"name,omitempty"` // a new name (409 if another entity has it: merge instead)
	Type *string `json:"type,omitempty"`
}

// EntityMerge is POST /v1/memory/entities/{name}/merge's body.
type EntityMerge struct {
	Into string `json:"into"` // the entity that remains
}

// MergeResult is the merge's answer: the entity that remains.
type MergeResult struct {
	Entity    Entity     `json:"entity"`
	Relations []Relation `json:"relations"`
	Moved     int        `json:"moved"` // relations moved from the merged entity
}

// RelationPage is GET /v1/memory/relations's answer.
type RelationPage struct {
	Relations []Relation `json:"relations"`
	Total     int        `json:"total"`
	Offset    int        `json:"offset"`
	Limit     int        `json:"limit"`
}

// Purge is POST /v1/memory/purge's body. No name, type or relation
// selects every entity.
type Purge struct {
	Confirm  string `json:"confirm"`            // must be "purge"
	Mode     string `json:"mode,omitempty"`     // hard (default) or soft
	Name     string `json:"name,omitempty"`     // this entity
	Type     string `json:"type,omitempty"`     // entities of this type
	Relation string `json:"relation,omitempty"` // entities in such a relation
}

// PurgeResult is the purge's answer.
type PurgeResult struct {
	Purged int `json:"purged"` // entities, each with its relations
}

// Doc is a document of the document memory.
type Doc struct {
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	Content string  `json:"content"`
	Score   float64 `json:"score,omitempty"` // a search's relevance
	Scope   string  `json:"scope"`
	Writer  string  `json:"writer"`
}

// DocPage is GET /v1/memory/docs's answer; a search (?q=) has no total
// beyond its hits.
type DocPage struct {
	Docs   []Doc `json:"docs"`
	Total  int   `json:"total"`
	Offset int   `json:"offset"`
	Limit  int   `json:"limit"`
}

func (s *Server) memoryRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/memory", summary: "Counts of the graph and document memory; ?scope= and ?writer= narrow every memory route.", out: MemoryStats{}, h: s.memoryStats},
		{method: "GET", path: "/v1/memory/entities", summary: "Entities, most mentioned first; ?q= searches names; paged.",
			out: EntityPage{}, h: s.listEntities},
		{method: "GET", path: "/v1/memory/entities/{name}", summary: "An entity and its relations; 409 if several scopes or writers have the name.", out: EntityDetail{}, h: s.getEntity},
		{method: "PATCH", path: "/v1/memory/entities/{name}", summary: "Rename an entity or set its type.",
			in: EntityEdit{}, out: EntityDetail{}, h: s.editEntity},
		{method: "DELETE", path: "/v1/memory/entities/{name}", summary: "Delete an entity and its relations.", h: s.deleteEntity},
		{method: "POST", path: "/v1/memory/entities/{name}/merge", summary: "Fold an entity into another (two names of one thing).",
			in: EntityMerge{}, out: MergeResult{}, h: s.mergeEntity},
		{method: "GET", path: "/v1/memory/relations", summary: "Relations; ?q= matches either end or the kind; paged.",
			out: RelationPage{}, h: s.listRelations},
		{method: "DELETE", path: "/v1/memory/relations", summary: "Delete one relation: ?source=&relation=&target=.", h: s.deleteRelation},
		{method: "POST", path: "/v1/memory/purge", summary: `Purge entities by name, type or relation, or all; needs {"confirm": "purge"}.`,
			in: Purge{}, out: PurgeResult{}, h: s.purgeMemory},
		{method: "GET", path: "/v1/memory/docs", summary: "Documents of the document memory; ?q= searches; paged.", out: DocPage{}, h: s.listDocs},
		{method: "GET", path: "/v1/memory/docs/{id}", summary: "One document.", out: Doc{}, h: s.getDoc},
		{method: "DELETE", path: "/v1/memory/docs/{id}", summary: "Delete a document.", h: s.deleteDoc},
	}
}

// page reads ?offset= and ?limit=; it has answered 400 if not ok.
func page(w http.ResponseWriter, r *http.Request) (offset, limit int, ok bool) {
	q := r.URL.Query()
	offset, limit = 0, defaultLimit
	for name, p := range map[string]*int{"offset": &offset, "limit": &limit} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || (name == "limit" && (n == 0 || n > maxLimit)) {
			writeError(w, http.StatusBadRequest, "bad_paging",
				fmt.Sprintf("%s must be a whole number (limit 1..%d)", name, maxLimit))
			return 0, 0, false
		}
		*p = n
	}
	return offset, limit, true
}

// memView returns the view ?scope= and ?writer= ask for (the whole
// memory when neither is given); it has answered 400 if not ok.
func memView(w http.ResponseWriter, r *http.Request) (scope.View, bool) {
	v, ok := narrowed(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "bad_scope",
			`scope must be "global", "owner", "user:<channel>/<id>" or "chat:<channel>/<chat>"`)
	}
	return v, ok
}

// narrowed returns the owner's view narrowed to the scope ?scope= and
// the writer ?writer= name (scope.Everything() when neither is given),
// for the memory's and the knowledge base's routes alike; false for a
// scope that is not valid.
func narrowed(r *http.Request) (scope.View, bool) {
	v := scope.Everything()
	q := r.URL.Query()
	if sc := q.Get("scope"); sc != "" {
		if !scope.Scope(sc).Valid() {
			return v, false
		}
		v.Write, v.Read, v.AllScopes = scope.Scope(sc), []scope.Scope{scope.Scope(sc)}, false
	}
	if q.Has("writer") {
		v.Writer, v.AllWriters = q.Get("writer"), false
	}
	return v, true
}

// memoryError answers err of an entry named name: 404, 409 or 500.
func (s *Server) memoryError(w http.ResponseWriter, what, name string, err error) {
	switch {
	case errors.Is(err, memory.ErrNoEntity):
		writeError(w, http.StatusNotFound, "no_entity", fmt.Sprintf("no entity %q", name))
	case errors.Is(err, memory.ErrNoDoc):
		writeError(w, http.StatusNotFound, "no_document", fmt.Sprintf("no document %q", name))
	case errors.Is(err, memory.ErrAmbiguous):
		writeError(w, http.StatusConflict, "ambiguous",
			fmt.Sprintf("%q is in several scopes or from several writers: add ?scope= and ?writer=", name))
	default:
		s.internalError(w, what, err)
	}
}

func (s *Server) memoryStats(w http.ResponseWriter, r *http.Request) {
	v, ok := memView(w, r)
	if !ok {
		return
	}
	c, err := s.app.Memory.Introspect(v)
	if err != nil {
		s.internalError(w, "counting memory", err)
		return
	}
	n := func(k string) int { v, _ := c[k].(int); return v }
	docs, _ := s.app.Docs.Stats(v)["documents"].(int)
	writeJSON(w, http.StatusOK, MemoryStats{Entities: n("entities"), Relations: n("relations"),
		PurgedEntities: n("purged_entities"), PurgedRelations: n("purged_relations"), Documents: docs})
}

func (s *Server) listEntities(w http.ResponseWriter, r *http.Request) {
	offset, limit, ok := page(w, r)
	if !ok {
		return
	}
	v, ok := memView(w, r)
	if !ok {
		return
	}
	list, total, err := s.app.Memory.Entities(r.Context(), v, r.URL.Query().Get("q"), offset, limit)
	if err != nil {
		s.internalError(w, "listing entities", err)
		return
	}
	out := EntityPage{Entities: make([]Entity, len(list)), Total: total, Offset: offset, Limit: limit}
	for i, e := range list {
		out.Entities[i] = apiEntity(e)
	}
	writeJSON(w, http.StatusOK, out)
}

// The answers mask what looks like a key or a password in an entry's
// text and names (redact.KeyLike), as the model's context does: the web
// UI reads them, and secrets never reach it unmasked. An entity or a
// relation whose name looks like a key is addressed by its masked name
// in vain; the owner changes it with `hearth memory --reveal`.

func apiEntity(e memory.EntityEntry) Entity {
	return Entity{Name: redact.KeyLike(e.Name), Type: redact.KeyLike(e.Type), Mentions: e.MentionCount, Scope: string(e.Scope), Writer: e.Writer}
}

func apiRelations(list []memory.RelationEntry) []Relation {
	out := make([]Relation, len(list))
	for i, r := range list {
		out[i] = Relation{Source: redact.KeyLike(r.SourceName), Relation: redact.KeyLike(r.RelationType), Target: redact.KeyLike(r.TargetName),
			Scope: string(r.Scope), Writer: r.Writer}
	}
	return out
}

func apiDoc(d memory.DocEntry) Doc {
	return Doc{ID: d.ID, Title: redact.KeyLike(d.Title), Content: redact.KeyLike(d.Content), Score: d.Score, Scope: string(d.Scope), Writer: d.Writer}
}

// entityDetail answers an entity with its relations, or 404 or 409.
func (s *Server) entityDetail(w http.ResponseWriter, r *http.Request, v scope.View, name string) (EntityDetail, bool) {
	e, rels, err := s.app.Memory.Entity(r.Context(), v, name)
	if err != nil {
		s.memoryError(w, "reading an entity", name, err)
		return EntityDetail{}, false
	}
	return EntityDetail{Entity: apiEntity(e), Relations: apiRelations(rels)}, true
}

// narrow returns v narrowed to d's entity's scope and writer.
func narrow(v scope.View, d EntityDetail) scope.View {
	sc := scope.Scope(d.Entity.Scope)
	v.Write, v.Read, v.AllScopes = sc, []scope.Scope{sc}, false
	v.Writer, v.AllWriters = d.Entity.Writer, false
	return v
}

func (s *Server) getEntity(w http.ResponseWriter, r *http.Request) {
	v, ok := memView(w, r)
	if !ok {
		return
	}
	if d, ok := s.entityDetail(w, r, v, r.PathValue("name")); ok {
		writeJSON(w, http.StatusOK, d)
	}
}

func (s *Server) editEntity(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var req EntityEdit
	if !decodeJSON(w, r, &req) {
		return
	}
	if req.Name == nil && req.Type == nil {
		writeError(w, http.StatusBadRequest, "nothing_to_change", `send "name", "type" or both`)
		return
	}
	v, ok := memView(w, r)
	if !ok {
		return
	}
	d, ok := s.entityDetail(w, r, v, name)
	if !ok {
		return
	}
	v = narrow(v, d)
	if req.Name != nil {
		if strings.TrimSpace(*req.Name) == "" {
			writeFieldErrors(w, "invalid entity", map[string]string{"name": "may not be empty"})
			return
		}
		err := s.app.Memory.Rename(r.Context(), v, name, *req.Name)
		if errors.Is(err, memory.ErrExists) {
			writeError(w, http.StatusConflict, "entity_exists",
				fmt.Sprintf("another entity is named %q; merge the two instead (POST /v1/memory/entities/{name}/merge)", *req.Name))
			return
		}
		if err != nil {
			s.internalError(w, "renaming an entity", err)
			return
		}
		name = strings.TrimSpace(*req.Name)
	}
	if req.Type != nil {
		if err := s.app.Memory.SetType(r.Context(), v, name, *req.Type); err != nil {
			s.memoryError(w, "setting an entity's type", name, err)
			return
		}
	}
	if d, ok := s.entityDetail(w, r, v, name); ok {
		writeJSON(w, http.StatusOK, d)
	}
}

func (s *Server) deleteEntity(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	v, ok := memView(w, r)
	if !ok {
		return
	}
	// Its relations, read first: the conversations shown them are told.
	e, rels, err := s.app.Memory.Entity(r.Context(), v, name)
	if err == nil {
		err = s.app.Memory.Delete(r.Context(), v, name)
	}
	if err != nil {
		s.memoryError(w, "deleting an entity", name, err)
		return
	}
	for _, rel := range rels {
		s.memoryChanged(r, kernel.RelationText(rel.Relation), e.Scope, rel.Writer)
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) mergeEntity(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var req EntityMerge
	if !decodeJSON(w, r, &req) {
		return
	}
	if req.Into == "" || req.Into == name {
		writeFieldErrors(w, "invalid merge", map[string]string{"into": "name another entity"})
		return
	}
	v, ok := memView(w, r)
	if !ok {
		return
	}
	d, ok := s.entityDetail(w, r, v, name)
	if !ok {
		return
	}
	v = narrow(v, d) // both in the merged entity's scope and writer
	if _, ok := s.entityDetail(w, r, v, req.Into); !ok {
		return
	}
	moved, err := s.app.Memory.MergeEntities(v, name, req.Into)
	if err != nil {
		s.internalError(w, "merging entities", err)
		return
	}
	if d, ok := s.entityDetail(w, r, v, req.Into); ok {
		writeJSON(w, http.StatusOK, MergeResult{Entity: d.Entity, Relations: d.Relations, Moved: moved})
	}
}

func (s *Server) listRelations(w http.ResponseWriter, r *http.Request) {
	offset, limit, ok := page(w, r)
	if !ok {
		return
	}
	v, ok := memView(w, r)
	if !ok {
		return
	}
	list, total, err := s.app.Memory.Relations(r.Context(), v, r.URL.Query().Get("q"), offset, limit)
	if err != nil {
		s.internalError(w, "listing relations", err)
		return
	}
	writeJSON(w, http.StatusOK, RelationPage{Relations: apiRelations(list), Total: total, Offset: offset, Limit: limit})
}

func (s *Server) deleteRelation(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rel := sdk.Relation{SourceName: q.Get("source"), RelationType: q.Get("relation"), TargetName: q.Get("target")}
	if rel.SourceName == "" || rel.RelationType == "" || rel.TargetName == "" {
		writeError(w, http.StatusBadRequest, "bad_relation", "name the relation: ?source=&relation=&target=")
		return
	}
	v, ok := memView(w, r)
	if !ok {
		return
	}
	ok, err := s.app.Memory.DeleteRelation(r.Context(), v, rel)
	switch {
	case err != nil:
		s.internalError(w, "deleting a relation", err)
	case !ok:
		writeError(w, http.StatusNotFound, "no_relation", "no such relation")
	default:
		in := scope.Scope("") // a relation of any scope the view sees
		if !v.AllScopes {
			in = v.Write
		}
		writer := "" // of any writer the view sees: not known
		if !v.AllWriters {
			writer = v.Writer
		}
		s.memoryChanged(r, kernel.RelationText(rel), in, writer) // conversations shown it are told
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *Server) purgeMemory(w http.ResponseWriter, r *http.Request) {
	var req Purge
	if !decodeJSON(w, r, &req) {
		return
	}
	bad := map[string]string{}
	if req.Confirm != "purge" {
		bad["confirm"] = `must be "purge": a purge cannot be undone`
	}
	if req.Mode == "" {
		req.Mode = "hard"
	}
	if req.Mode != "hard" && req.Mode != "soft" {
		bad["mode"] = "hard or soft"
	}
	if len(bad) > 0 {
		writeFieldErrors(w, "purge refused", bad)
		return
	}
	v, ok := memView(w, r)
	if !ok {
		return
	}
	criteria := map[string]string{}
	for k, val := range map[string]string{"name": req.Name, "type": req.Type, "relation": req.Relation} {
		if val != "" {
			criteria[k] = val
		}
	}
	var n int
	var err error
	if len(criteria) == 0 {
		n, err = s.app.Memory.PurgeAll(r.Context(), v, req.Mode == "hard")
	} else {
		n, err = s.app.Memory.Purge(v, criteria, req.Mode)
	}
	if err != nil {
		s.internalError(w, "purging memory", err)
		return
	}
	s.log.Info("memory purged through the API", "entities", n, "mode", req.Mode, "scope", r.URL.Query().Get("scope"))
	writeJSON(w, http.StatusOK, PurgeResult{Purged: n})
}

func (s *Server) listDocs(w http.ResponseWriter, r *http.Request) {
	offset, limit, ok := page(w, r)
	if !ok {
		return
	}
	v, ok := memView(w, r)
	if !ok {
		return
	}
	out := DocPage{Docs: []Doc{}, Offset: offset, Limit: limit}
	if q := strings.TrimSpace(r.URL.Query().Get("q")); q != "" {
		hits, err := s.app.Docs.QueryEntries(r.Context(), v, q, offset+limit)
		if err != nil {
			s.internalError(w, "searching documents", err)
			return
		}
		out.Total = len(hits)
		for _, d := range hits[min(offset, len(hits)):] {
			out.Docs = append(out.Docs, apiDoc(d))
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	list, total, err := s.app.Docs.List(r.Context(), v, offset, limit)
	if err != nil {
		s.internalError(w, "listing documents", err)
		return
	}
	out.Total = total
	for _, d := range list {
		out.Docs = append(out.Docs, apiDoc(d))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getDoc(w http.ResponseWriter, r *http.Request) {
	v, ok := memView(w, r)
	if !ok {
		return
	}
	d, err := s.app.Docs.Get(r.Context(), v, r.PathValue("id"))
	if err != nil {
		s.memoryError(w, "reading a document", r.PathValue("id"), err)
		return
	}
	writeJSON(w, http.StatusOK, apiDoc(d))
}

func (s *Server) deleteDoc(w http.ResponseWriter, r *http.Request) {
	v, ok := memView(w, r)
	if !ok {
		return
	}
	d, err := s.app.Docs.Get(r.Context(), v, r.PathValue("id"))
	if err == nil { // one document: delete just it
		sc := d.Scope
		v.Write, v.Read, v.AllScopes, v.Writer, v.AllWriters = sc, []scope.Scope{sc}, false, d.Writer, false
		err = s.app.Docs.Delete(r.Context(), v, r.PathValue("id"))
	}
	if err != nil {
		s.memoryError(w, "deleting a document", r.PathValue("id"), err)
		return
	}
	s.memoryChanged(r, d.Content, d.Scope, d.Writer) // conversations shown it are told
	w.WriteHeader(http.StatusNoContent)
}

// memoryChanged tells the conversations of scope in that were shown the
// text old, of writer, deleted, so in their next request
// (kernel.MemoryChanged). The deletion stands when that fails; the log
// says so.
func (s *Server) memoryChanged(r *http.Request, old string, in scope.Scope, writer string) {
	if _, err := s.app.Kernel.MemoryChanged(r.Context(), old, "", in, writer); err != nil {
		s.log.Warn("memory: the conversations shown a deleted entry could not be told", "scope", in, "err", err)
	}
}
