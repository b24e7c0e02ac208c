package kernel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/knowledge"
	"github.com/hearth-agent/hearth/internal/memory"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// MemoryRecaller is the Recaller over Hearth's memory services: doc
// memory (where remembered facts live, one document each), the graph
// memory's relations among the entities the input names, and the
// knowledge base. A nil service is skipped.
//
// Scores are comparable across sources: doc memory's are its ranking
// scores over the best one's (1 for the best), graph relations and
// knowledge entries score by rank below that (GraphWeight,
// KnowledgeWeight over 1+rank).
type MemoryRecaller struct {
	Graph     scope.Graph
	Docs      scope.Docs
	Knowledge scope.Knowledge
	// Per source, the most items asked for (default 8).
	PerSource int
}

var _ Recaller = (*MemoryRecaller)(nil)

// The weights of the sources with rank-only scores.
const (
	GraphWeight     = 0.8
	KnowledgeWeight = 0.6
)

// maxItemRunes cuts a long document or knowledge entry in the recall
// message; a fact is a sentence and is never cut.
const maxItemRunes = 300

// The services' optional methods that say whose each entry is
// (*memory.Docs, *memory.Graph and *knowledge.Base have them). A service
// without them is still recalled from, its items with no owner
// (Recalled.Scope ""), which taints the turn that recalls them.
type (
	docEntries interface {
		QueryEntries(ctx context.Context, v scope.View, text string, topK int) ([]memory.DocEntry, error)
	}
	graphEntries interface {
		RecallEntries(ctx context.Context, v scope.View, query []string, depth int) ([]memory.EntityEntry, []memory.RelationEntry, error)
	}
	knowledgeEntries interface {
		Find(v scope.View, query string, topK int) []knowledge.Hit
		Read(v scope.View, key knowledge.Key) (string, error)
	}
)

// Hearth's own services say whose each entry is.
var (
	_ docEntries       = (*memory.Docs)(nil)
	_ graphEntries     = (*memory.Graph)(nil)
	_ knowledgeEntries = (*knowledge.Base)(nil)
)

// Recall implements Recaller.
func (r *MemoryRecaller) Recall(ctx context.Context, v scope.View, input string) ([]Recalled, error) {
	per := r.PerSource
	if per <= 0 {
		per = 8
	}
	var items []Recalled
	var errs []error
	if r.Docs != nil {
		docs, err := r.docs(ctx, v, input, per)
		if err != nil {
			errs = append(errs, fmt.Errorf("document memory: %w", err))
		}
		best := 0.0
		for _, d := range docs {
			best = max(best, d.Score)
		}
		for _, d := range docs {
			score := 1.0
			if best > 0 {
				score = d.Score / best
			}
			if score <= 0 {
				continue
			}
			items = append(items, Recalled{MemItem: sdk.MemItem{Role: "system", Content: cutItem(d.Content), Score: score},
				Writer: d.Writer, Scope: d.Scope})
		}
	}
	if r.Graph != nil {
		if terms := recallTerms(input); len(terms) > 0 {
			rels, err := r.relations(ctx, v, terms)
			if err != nil {
				errs = append(errs, fmt.Errorf("graph memory: %w", err))
			}
			for i, rel := range rels[:min(len(rels), per)] {
				items = append(items, Recalled{MemItem: sdk.MemItem{Role: "system", Score: GraphWeight / float64(1+i),
					Content: RelationText(rel.Relation)}, Writer: rel.Writer, Scope: rel.Scope})
			}
		}
	}
	if r.Knowledge != nil {
		hits, err := r.knowledge(ctx, v, input, min(per, 3))
		if err != nil {
			errs = append(errs, fmt.Errorf("knowledge: %w", err))
		}
		for i, h := range hits {
			items = append(items, Recalled{MemItem: sdk.MemItem{Role: "system", Score: KnowledgeWeight / float64(1+i),
				Content: cutItem(h.name + ": " + h.content)}, Writer: h.writer, Scope: h.scope})
		}
	}
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	return items, errors.Join(errs...)
}

// docs are the documents v sees best matching input, with their owners
// when the service can say them.
func (r *MemoryRecaller) docs(ctx context.Context, v scope.View, input string, k int) ([]memory.DocEntry, error) {
	if d, ok := r.Docs.(docEntries); ok {
		return d.QueryEntries(ctx, v, input, k)
	}
	docs := r.Docs.Query(v, input, k)
	out := make([]memory.DocEntry, len(docs))
	for i, d := range docs {
		out[i].Doc = *d
	}
	return out, nil
}

// relations are the relations among the entities terms name, with their
// owners when the service can say them.
func (r *MemoryRecaller) relations(ctx context.Context, v scope.View, terms []string) ([]memory.RelationEntry, error) {
	if g, ok := r.Graph.(graphEntries); ok {
		_, rels, err := g.RecallEntries(ctx, v, terms, 1)
		return rels, err
	}
	_, rels, err := r.Graph.Recall(v, terms, 1)
	out := make([]memory.RelationEntry, len(rels))
	for i, rel := range rels {
		out[i].Relation = rel
	}
	return out, err
}

type knowledgeHit struct {
	name, content, writer string
	scope                 scope.Scope
}

// knowledge is the knowledge entries v sees best matching input, with
// their owners when the service can say them.
func (r *MemoryRecaller) knowledge(_ context.Context, v scope.View, input string, k int) ([]knowledgeHit, error) {
	if kb, ok := r.Knowledge.(knowledgeEntries); ok {
		var out []knowledgeHit
		for _, h := range kb.Find(v, input, k) {
			text, err := kb.Read(v, h.Key)
			if err != nil {
				continue // removed since
			}
			out = append(out, knowledgeHit{name: h.Name, content: text, writer: h.Writer, scope: h.Scope})
		}
		return out, nil
	}
	hits, err := r.Knowledge.Search(v, input, k)
	out := make([]knowledgeHit, len(hits))
	for i, h := range hits {
		out[i] = knowledgeHit{name: h.Name, content: h.Content}
	}
	return out, err
}

// cutItem shortens s to maxItemRunes, on one line.
func cutItem(s string) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= maxItemRunes {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:maxItemRunes])) + "…"
}

// maxRecallTerms bounds the words of an input given to the graph memory.
const maxRecallTerms = 24

// stopWords are English words too common to name an entity: the graph
// memory matches a word anywhere in a name.
var stopWords = map[string]bool{
	"the": true, "and": true, "are": true, "was": true, "what": true, "who": true, "where": true,
	"when": true, "how": true, "does": true, "did": true, "you": true, "your": true, "for": true,
	"with": true, "that": true, "this": true, "from": true, "have": true, "has": true, "about": true,
	"remember": true, "know": true, "tell": true, "can": true, "please": true, "like": true, "likes": true,
}

// recallTerms are the words of input the graph memory looks entity
// names up by: words of three letters or more in scripts with spaces
// (lower-cased, common words left out), and the two-character pieces of
// Chinese, Japanese and Korean text, which has no spaces between words.
func recallTerms(input string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] && len(out) < maxRecallTerms {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, w := range strings.FieldsFunc(input, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		var run []rune
		flush := func() {
			switch {
			case len(run) == 1:
				add(string(run))
			case len(run) > 1:
				for i := 0; i+1 < len(run); i++ {
					add(string(run[i : i+2]))
				}
			}
			run = run[:0]
		}
		var latin []rune
		flushLatin := func() {
			if w := strings.ToLower(string(latin)); utf8.RuneCountInString(w) >= 3 && !stopWords[w] {
				add(w)
			}
			latin = latin[:0]
		}
		for _, r := range w {
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
				flushLatin()
				run = append(run, r)
				continue
			}
			flush()
			latin = append(latin, r)
		}
		flush()
		flushLatin()
	}
	return out
}

// RelationText is how a relation reads where it is shown to the model,
// and so the text a correction line names.
func RelationText(r sdk.Relation) string {
	return r.SourceName + " " + r.RelationType + " " + r.TargetName
}
