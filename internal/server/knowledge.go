package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/knowledge"
)

// The knowledge base: Markdown files in <data dir>/knowledge, one per
// entry, named by the entry (no folders). An entry's name in a URL is
// path-escaped; a trailing .md is accepted and dropped.

// excerptRunes is how much of an entry a search hit shows.
const excerptRunes = 200

// KnowledgeEntry is one entry; Content is left out of lists.
type KnowledgeEntry struct {
	Name    string `json:"name"`
	Content string `json:"content,omitempty"`
	// Excerpt is the start of the entry, in search hits.
	Excerpt string `json:"excerpt,omitempty"`
}

// KnowledgePage is GET /v1/knowledge's answer: names, or with ?q= the
// best matches first with an excerpt each.
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
		{method: "GET", path: "/v1/knowledge", summary: "Knowledge entries by name; ?q= searches (Chinese too); paged.",
			out: KnowledgePage{}, h: s.listKnowledge},
		{method: "GET", path: "/v1/knowledge/{name...}", summary: "One entry's Markdown.", out: KnowledgeEntry{}, h: s.getKnowledge},
		{method: "PUT", path: "/v1/knowledge/{name...}", summary: "Create or replace an entry (JSON {content}, or a text/markdown body).",
			in: KnowledgeWrite{}, out: KnowledgeEntry{}, h: s.putKnowledge},
		{method: "DELETE", path: "/v1/knowledge/{name...}", summary: "Delete an entry.", h: s.deleteKnowledge},
	}
}

func (s *Server) listKnowledge(w http.ResponseWriter, r *http.Request) {
	offset, limit, ok := page(w, r)
	if !ok {
		return
	}
	out := KnowledgePage{Entries: []KnowledgeEntry{}, Offset: offset, Limit: limit}
	if q := strings.TrimSpace(r.URL.Query().Get("q")); q != "" {
		hits, err := s.app.KB.Search(q, offset+limit)
		if err != nil {
			s.internalError(w, "searching the knowledge base", err)
			return
		}
		out.Total = len(hits)
		for _, h := range hits[min(offset, len(hits)):] {
			out.Entries = append(out.Entries, KnowledgeEntry{Name: h.Name, Excerpt: excerpt(h.Content)})
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	names, err := s.app.KB.List()
	if err != nil {
		s.internalError(w, "listing the knowledge base", err)
		return
	}
	out.Total = len(names)
	for _, n := range names[min(offset, len(names)):min(offset+limit, len(names))] {
		out.Entries = append(out.Entries, KnowledgeEntry{Name: n})
	}
	writeJSON(w, http.StatusOK, out)
}

func excerpt(text string) string {
	if utf8.RuneCountInString(text) <= excerptRunes {
		return text
	}
	return string([]rune(text)[:excerptRunes]) + "…"
}

// knowledgeName returns the entry {name...} names; it has answered 400
// for one that is not a plain file name (a folder, "..", hidden).
func knowledgeName(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := strings.TrimSuffix(r.PathValue("name"), knowledge.Ext)
	if err := knowledge.CheckName(name); err != nil {
		writeError(w, http.StatusBadRequest, "bad_name",
			fmt.Sprintf("%q is not a knowledge entry's name: one file name, no slashes, not hidden, no ..", r.PathValue("name")))
		return "", false
	}
	return name, true
}

func (s *Server) getKnowledge(w http.ResponseWriter, r *http.Request) {
	name, ok := knowledgeName(w, r)
	if !ok {
		return
	}
	text, err := s.app.KB.Read(name)
	switch {
	case errors.Is(err, knowledge.ErrNotFound):
		writeError(w, http.StatusNotFound, "no_entry", fmt.Sprintf("no knowledge entry %q", name))
	case err != nil:
		s.internalError(w, "reading a knowledge entry", err)
	default:
		writeJSON(w, http.StatusOK, KnowledgeEntry{Name: name, Content: text})
	}
}

func (s *Server) putKnowledge(w http.ResponseWriter, r *http.Request) {
	name, ok := knowledgeName(w, r)
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
	_, err := s.app.KB.Read(name)
	existed := err == nil
	if err := s.app.KB.Add(name, content); err != nil {
		s.internalError(w, "writing a knowledge entry", err)
		return
	}
	status := http.StatusOK
	if !existed {
		status = http.StatusCreated
	}
	writeJSON(w, status, KnowledgeEntry{Name: name, Content: content})
}

func (s *Server) deleteKnowledge(w http.ResponseWriter, r *http.Request) {
	name, ok := knowledgeName(w, r)
	if !ok {
		return
	}
	err := s.app.KB.Remove(name)
	switch {
	case errors.Is(err, knowledge.ErrNotFound):
		writeError(w, http.StatusNotFound, "no_entry", fmt.Sprintf("no knowledge entry %q", name))
	case err != nil:
		s.internalError(w, "deleting a knowledge entry", err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
