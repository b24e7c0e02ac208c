package memoryplugin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/hearth-agent/hearth/sdk"
)

// RememberInput is the input of memories__remember.
type RememberInput struct {
	Fact     string `json:"fact" jsonschema:"one sentence"`
	Subject  string `json:"subject,omitempty" jsonschema:"optional triple: subject relation object"`
	Relation string `json:"relation,omitempty"`
	Object   string `json:"object,omitempty"`
}

// QueryInput is the input of memories__recall and memories__search.
type QueryInput struct {
	Query string `json:"query" jsonschema:"what to look for"`
}

// KnowledgeInput is the input of memories__add_knowledge.
type KnowledgeInput struct {
	Name    string `json:"name" jsonschema:"the entry's name, e.g. wifi-password"`
	Content string `json:"content" jsonschema:"the entry, Markdown"`
}

// ForgetInput is the input of memories__forget.
type ForgetInput struct {
	Fact string `json:"fact" jsonschema:"the fact's exact text"`
}

// CorrectInput is the input of memories__correct.
type CorrectInput struct {
	Old string `json:"old" jsonschema:"the fact's exact text"`
	New string `json:"new" jsonschema:"the corrected fact"`
}

// Fact is one fact in a tool's result.
type Fact struct {
	Text  string  `json:"text"`
	Score float64 `json:"score,omitzero"`
	id    string  // its document's id (the owner may have corrected its text)
}

func (p *Plugin) remember(ctx context.Context, _ *sdk.ToolContext, in RememberInput) (Result, error) {
	fact, err := CheckFact(in.Fact)
	if err != nil {
		return Result{}, err
	}
	triple := sdk.Triple{Subject: strings.TrimSpace(in.Subject), Relation: strings.TrimSpace(in.Relation), Object: strings.TrimSpace(in.Object)}
	if (triple.Subject != "" || triple.Relation != "" || triple.Object != "") &&
		(triple.Subject == "" || triple.Relation == "" || triple.Object == "") {
		return Result{}, errors.New("give subject, relation and object together, or none of them")
	}
	if err := contextDone(ctx); err != nil {
		return Result{}, err
	}
	if err := p.s.DocMemory().Insert(&sdk.Doc{ID: FactID(fact), Title: FactTitle, Content: fact}); err != nil {
		return Result{}, fmt.Errorf("remembering: %w", err)
	}
	if triple.Subject != "" {
		if err := p.s.Memory().Commit([]sdk.Triple{triple}); err != nil {
			return Result{}, fmt.Errorf("remembering the relation: %w", err)
		}
	}
	return result(map[string]any{"remembered": fact}, []string{fact}, "", ""), nil
}

// facts returns the remembered facts best matching query, best first.
func (p *Plugin) facts(query string, k int) []Fact {
	var out []Fact
	for _, d := range p.s.DocMemory().Query(query, k*2) {
		if d.Title == FactTitle && len(out) < k {
			out = append(out, Fact{Text: d.Content, Score: d.Score, id: d.ID})
		}
	}
	return out
}

func (p *Plugin) recall(ctx context.Context, _ *sdk.ToolContext, in QueryInput) (Result, error) {
	if strings.TrimSpace(in.Query) == "" {
		return Result{}, errors.New("say what to recall")
	}
	facts := p.facts(in.Query, 10)
	var relations []string
	if words := strings.FieldsFunc(in.Query, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }); len(words) > 0 {
		_, rels, err := p.s.Memory().Recall(words, 1)
		if err != nil {
			return Result{}, fmt.Errorf("recalling: %w", err)
		}
		for _, r := range rels[:min(len(rels), 10)] {
			relations = append(relations, r.SourceName+" "+r.RelationType+" "+r.TargetName)
		}
	}
	if err := contextDone(ctx); err != nil {
		return Result{}, err
	}
	shown := make([]string, len(facts))
	for i, f := range facts {
		shown[i] = f.Text
	}
	out := map[string]any{"facts": facts}
	if len(relations) > 0 {
		out["relations"] = relations
	}
	if len(facts) == 0 && len(relations) == 0 {
		out["note"] = "nothing remembered about this"
	}
	return result(out, shown, "", ""), nil
}

// SearchHit is one hit of memories__search.
type SearchHit struct {
	Source  string  `json:"source"` // knowledge or memory
	Name    string  `json:"name"`   // knowledge entry name or document title
	Content string  `json:"content"`
	Score   float64 `json:"score,omitzero"`
}

func (p *Plugin) search(ctx context.Context, _ *sdk.ToolContext, in QueryInput) (Result, error) {
	if strings.TrimSpace(in.Query) == "" {
		return Result{}, errors.New("say what to search for")
	}
	var hits []SearchHit
	kb, err := p.s.Knowledge().Search(in.Query, 5)
	if err != nil {
		return Result{}, fmt.Errorf("searching the knowledge base: %w", err)
	}
	for _, k := range kb {
		hits = append(hits, SearchHit{Source: "knowledge", Name: k.Name, Content: clip(k.Content, 1500)})
	}
	var shown []string
	for _, d := range p.s.DocMemory().Query(in.Query, 5) {
		hits = append(hits, SearchHit{Source: "memory", Name: d.Title, Content: clip(d.Content, 1500), Score: d.Score})
		if d.Title == FactTitle {
			shown = append(shown, d.Content)
		}
	}
	if err := contextDone(ctx); err != nil {
		return Result{}, err
	}
	return result(map[string]any{"hits": hits}, shown, "", ""), nil
}

func (p *Plugin) addKnowledge(ctx context.Context, _ *sdk.ToolContext, in KnowledgeInput) (Result, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" || strings.TrimSpace(in.Content) == "" {
		return Result{}, errors.New("give the entry a name and content")
	}
	if err := contextDone(ctx); err != nil {
		return Result{}, err
	}
	if err := p.s.Knowledge().Add(name, in.Content); err != nil {
		return Result{}, fmt.Errorf("adding knowledge: %w", err)
	}
	return result(map[string]any{"added": name}, nil, "", ""), nil
}

// find returns the remembered fact whose text is fact (spacing aside).
func (p *Plugin) find(fact string) (Fact, bool) {
	want := strings.Join(strings.Fields(fact), " ")
	if want == "" {
		return Fact{}, false
	}
	for _, f := range p.facts(want, 10) {
		if f.Text == want {
			return f, true
		}
	}
	return Fact{}, false
}

func (p *Plugin) forget(ctx context.Context, _ *sdk.ToolContext, in ForgetInput) (Result, error) {
	fact, ok := p.find(in.Fact)
	if !ok {
		return Result{}, fmt.Errorf("no remembered fact reads %q; use memories__recall to see the exact text", in.Fact)
	}
	if err := contextDone(ctx); err != nil {
		return Result{}, err
	}
	if err := p.removeFact(fact); err != nil {
		return Result{}, err
	}
	return result(map[string]any{"forgotten": fact.Text}, nil, fact.Text, ""), nil
}

func (p *Plugin) correct(ctx context.Context, _ *sdk.ToolContext, in CorrectInput) (Result, error) {
	found, ok := p.find(in.Old)
	old := found.Text
	if !ok {
		return Result{}, fmt.Errorf("no remembered fact reads %q; use memories__recall to see the exact text", in.Old)
	}
	fixed, err := CheckFact(in.New)
	if err != nil {
		return Result{}, err
	}
	if fixed == old {
		return Result{}, errors.New("the corrected fact is the same as the old one")
	}
	if err := contextDone(ctx); err != nil {
		return Result{}, err
	}
	if err := p.removeFact(found); err != nil {
		return Result{}, err
	}
	if err := p.s.DocMemory().Insert(&sdk.Doc{ID: FactID(fixed), Title: FactTitle, Content: fixed}); err != nil {
		// Put the old fact back: a failed correction changes nothing.
		if err2 := p.s.DocMemory().Insert(&sdk.Doc{ID: found.id, Title: FactTitle, Content: old}); err2 != nil {
			err = errors.Join(err, fmt.Errorf("restoring the old fact: %w", err2))
		}
		return Result{}, fmt.Errorf("correcting: %w", err)
	}
	return result(map[string]any{"corrected": old, "now": fixed}, []string{fixed}, "", old+sdk.MarkArrow+fixed), nil
}

// removeFact removes fact's document, and fails when it is still there
// afterwards: the plugin may remove only what it wrote in this
// conversation's scope, and the owner's facts (added from the CLI, the
// web UI, or global) stay, so the model must not be told, nor other
// conversations marked, that they changed.
func (p *Plugin) removeFact(fact Fact) error {
	p.s.DocMemory().Remove(fact.id)
	if still, ok := p.find(fact.Text); ok && still.id == fact.id {
		return fmt.Errorf("%q is not this assistant's to forget or correct here (the owner wrote it, "+
			"or it belongs to another conversation); the owner can change it with `hearth memory`", fact.Text)
	}
	return nil
}

// clip shortens s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
