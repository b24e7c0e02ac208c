package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/knowledge"
	"github.com/hearth-agent/hearth/internal/scope"
)

// The knowledge base, as the owner sees it: every scope and writer
// (scope.Everything()). Entries are Markdown (or .txt) files in
// <data dir>/knowledge at any depth, named by their path without the
// extension ("recipes/红烧肉"); what plugins added lives in hidden folders
// there (docs/knowledge.md). An entry's name in a URL is path-escaped; a
// trailing .md is accepted and dropped. ?scope= and ?writer= name an
// entry other than the owner's global one, or narrow a list or search.

// excerptRunes is how much of an entry a search hit shows.
const excerptRunes = 200

// KnowledgeEntry is one entry; Content is left out of lists.
type KnowledgeEntry struct {
	Name string `json:"name"`
	// Scope and Writer say whose entry it is: "global" and "" (the
	// owner) for the files of the folder's visible tree.
	Scope  string `json:"scope"`
	Writer string `json:"writer"`
	// File is the entry's file, relative to the knowledge folder.
	File     string    `json:"file,omitempty"`
	Title    string    `json:"title,omitempty"`
	Size     int64     `json:"size,omitempty"`
	Modified time.Time `json:"modified,omitzero"`
	Content  string    `json:"content,omitempty"`
	// Score and Excerpt (the start of the entry) are set in search hits.
	Score   float64 `json:"score,omitempty"`
	Excerpt string  `json:"excerpt,omitempty"`
}

// KnowledgePage is GET /v1/knowledge's answer: entries by name, or with
// ?q= the best matches first with an excerpt each.
type KnowledgePage struct {
	Entries []KnowledgeEntry `json:"entries"`
	Total   int              `json:"total"`
	Offset  int              `json:"offset"`
	Limit   int              `json:"limit"`
}

// KnowledgeWrite is PUT /v1/knowledge/{name}'s JSON body; a text/markdown
// or text/plain body is the content itself.
type KnowledgeWrite struct {
	Content string `json:"content"`
}

func (s *Server) knowledgeRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/knowledge", summary: "Knowledge entries by name, every scope and writer (?scope=, ?writer= narrow); ?q= searches (Chinese too); paged.",
			out: KnowledgePage{}, h: s.listKnowledge},
		{method: "GET", path: "/v1/knowledge/{name...}", summary: "One entry's Markdown (?scope=, ?writer= for one not the owner's global).", out: KnowledgeEntry{}, h: s.getKnowledge},
		{method: "PUT", path: "/v1/knowledge/{name...}", summary: "Create or replace an entry (JSON {content}, or a text/markdown body); ?scope= for a scope other than global.",
			in: KnowledgeWrite{}, out: KnowledgeEntry{}, h: s.putKnowledge},
		{method: "DELETE", path: "/v1/knowledge/{name...}", summary: "Delete an entry (?scope=, ?writer= for one not the owner's global).", h: s.deleteKnowledge},
	}
}

// knowledgeFilter reads ?scope= and ?writer= (see narrowed): what a
// list or search is narrowed to; nil for everything. It has answered 422
// for a bad scope.
func knowledgeFilter(w http.ResponseWriter, r *http.Request) (func(scope.Scope, string) bool, bool) {
	v, ok := narrowed(r)
	if !ok {
		writeFieldErrors(w, "invalid scope", map[string]string{"scope": "global, owner, user:CHANNEL/ID or chat:CHANNEL/CHAT"})
		return nil, false
	}
	if v.AllScopes && v.AllWriters {
		return nil, true
	}
	return func(s scope.Scope, wr string) bool { return v.Sees(wr, s) }, true
}

func entryOf(e knowledge.Entry) KnowledgeEntry {
	return KnowledgeEntry{Name: e.Name, Scope: string(e.Scope), Writer: e.Writer, File: e.File, Title: e.Title, Size: e.Size, Modified: e.Modified}
}

func (s *Server) listKnowledge(w http.ResponseWriter, r *http.Request) {
	offset, limit, ok := page(w, r)
	if !ok {
		return
	}
	match, ok := knowledgeFilter(w, r)
	if !ok {
		return
	}
	v := scope.Everything()
	out := KnowledgePage{Entries: []KnowledgeEntry{}, Offset: offset, Limit: limit}
	if q := strings.TrimSpace(r.URL.Query().Get("q")); q != "" {
		hits := s.app.KB.FindMatching(v, q, offset+limit, match)
		out.Total = len(hits)
		for _, h := range hits[min(offset, len(hits)):] {
			e := entryOf(h.Entry)
			e.Score = h.Score
			if text, err := s.app.KB.Excerpt(v, h.Key, excerptRunes); err == nil {
				e.Excerpt = text
			}
			out.Entries = append(out.Entries, e)
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	var all []knowledge.Entry
	for _, e := range s.app.KB.Entries(v) {
		if match == nil || match(e.Scope, e.Writer) {
			all = append(all, e)
		}
	}
	out.Total = len(all)
	for _, e := range all[min(offset, len(all)):min(offset+limit, len(all))] {
		out.Entries = append(out.Entries, entryOf(e))
	}
	writeJSON(w, http.StatusOK, out)
}

// knowledgeKey returns the entry {name...}, ?scope= (default global)
// and ?writer= (default the owner) name; it has answered 400 for a name
// that would leave the folder or hide, or a bad scope.
func knowledgeKey(w http.ResponseWriter, r *http.Request) (knowledge.Key, bool) {
	name := strings.TrimSuffix(r.PathValue("name"), knowledge.Ext)
	if err := knowledge.CheckName(name); err != nil {
		writeError(w, http.StatusBadRequest, "bad_name",
			fmt.Sprintf("%q is not a knowledge entry's name: a relative path of file names, none hidden, no ..", r.PathValue("name")))
		return knowledge.Key{}, false
	}
	key := knowledge.Key{Scope: scope.Global, Writer: r.URL.Query().Get("writer"), Name: name}
	if sc := r.URL.Query().Get("scope"); sc != "" {
		if key.Scope = scope.Scope(sc); !key.Scope.Valid() {
			writeFieldErrors(w, "invalid scope", map[string]string{"scope": "global, owner, user:CHANNEL/ID or chat:CHANNEL/CHAT"})
			return knowledge.Key{}, false
		}
	}
	return key, true
}

func (s *Server) getKnowledge(w http.ResponseWriter, r *http.Request) {
	key, ok := knowledgeKey(w, r)
	if !ok {
		return
	}
	text, err := s.app.KB.Read(scope.Everything(), key)
	switch {
	case errors.Is(err, knowledge.ErrNotFound):
		writeError(w, http.StatusNotFound, "no_entry", fmt.Sprintf("no knowledge entry %q", key.Name))
	case err != nil:
		s.internalError(w, "reading a knowledge entry", err)
	default:
		writeJSON(w, http.StatusOK, KnowledgeEntry{Name: key.Name, Scope: string(key.Scope), Writer: key.Writer, Content: text})
	}
}

func (s *Server) putKnowledge(w http.ResponseWriter, r *http.Request) {
	key, ok := knowledgeKey(w, r)
	if !ok {
		return
	}
	var content string
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "text/markdown", "text/plain":
		b, err := io.ReadAll(r.Body)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("request body over %d bytes", tooBig.Limit))
			return
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_body", "reading the body failed")
			return
		}
		content = string(b)
	default:
		var req KnowledgeWrite
		if !decodeJSON(w, r, &req) {
			return
		}
		content = req.Content
	}
	if !utf8.ValidString(content) {
		writeFieldErrors(w, "invalid entry", map[string]string{"content": "not UTF-8 text"})
		return
	}
	created, err := s.app.KB.Put(scope.Everything(), key, content)
	if err != nil {
		s.internalError(w, "writing a knowledge entry", err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, KnowledgeEntry{Name: key.Name, Scope: string(key.Scope), Writer: key.Writer, Content: content})
}

func (s *Server) deleteKnowledge(w http.ResponseWriter, r *http.Request) {
	key, ok := knowledgeKey(w, r)
	if !ok {
		return
	}
	err := s.app.KB.Remove(scope.Everything(), key)
	switch {
	case errors.Is(err, knowledge.ErrNotFound):
		writeError(w, http.StatusNotFound, "no_entry", fmt.Sprintf("no knowledge entry %q", key.Name))
	case err != nil:
		s.internalError(w, "deleting a knowledge entry", err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
