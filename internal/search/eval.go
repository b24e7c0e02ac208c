package search

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// An evaluation collection is a folder with three files:
//
//	docs.jsonl     {"id":"d0001","title":"...","text":"..."} per line
//	queries.jsonl  {"id":"q001","text":"...","split":"dev"|"test","kind":"graded"|"single"} per line
//	qrels.tsv      qid<TAB>docid<TAB>grade per line, grades 1 to 3
//
// Evaluate runs every ranking system on it and reports nDCG@10 and
// recall@10 per split: tune on "dev", report "test".

// Collection is an evaluation collection loaded by LoadCollection.
type Collection struct {
	Name    string
	Docs    []EvalDoc
	Queries []EvalQuery
	Qrels   map[string]map[string]int // query id -> document id -> grade
}

// EvalDoc is one document of a Collection.
type EvalDoc struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Body is the text a document is indexed by: its title and its text.
func (d EvalDoc) Body() string { return d.Title + "\n" + d.Text }

// EvalQuery is one query of a Collection.
type EvalQuery struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Split string `json:"split"` // "dev" or "test"
	Kind  string `json:"kind"`  // "graded" or "single"
}

// LoadCollection reads the collection in dir, named after the folder.
func LoadCollection(dir string) (*Collection, error) {
	c := &Collection{Name: filepath.Base(dir), Qrels: map[string]map[string]int{}}
	var err error
	if c.Docs, err = readJSONL[EvalDoc](filepath.Join(dir, "docs.jsonl")); err != nil {
		return nil, err
	}
	if c.Queries, err = readJSONL[EvalQuery](filepath.Join(dir, "queries.jsonl")); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "qrels.tsv"))
	if err != nil {
		return nil, fmt.Errorf("reading judgments: %w", err)
	}
	defer f.Close()
	if err := c.readQrels(f); err != nil {
		return nil, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	return c, nil
}

func readJSONL[T any](path string) ([]T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading collection: %w", err)
	}
	var out []T
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func (c *Collection) readQrels(r io.Reader) error {
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return fmt.Errorf("line %d: want qid, docid and grade, got %q", n, line)
		}
		g, err := strconv.Atoi(f[2])
		if err != nil {
			return fmt.Errorf("line %d: grade: %w", n, err)
		}
		if g <= 0 {
			continue
		}
		if c.Qrels[f[0]] == nil {
			c.Qrels[f[0]] = map[string]int{}
		}
		c.Qrels[f[0]][f[1]] = g
	}
	return sc.Err()
}

// Scores are the mean measures of a system over a set of queries.
type Scores struct {
	Queries  int
	NDCG10   float64 // normalised discounted cumulative gain at 10, linear gains
	Recall10 float64 // share of the judged documents in the first 10
}

// Ranker returns the ids of the best documents for query, best first.
type Ranker func(query string) []string

// Evaluate runs rank on the queries of c in split ("" for all of them) and
// of kind ("" for any) that have judgments.
func (c *Collection) Evaluate(split, kind string, rank Ranker) Scores {
	var s Scores
	for _, q := range c.Queries {
		rel := c.Qrels[q.ID]
		if len(rel) == 0 || (split != "" && q.Split != split) || (kind != "" && q.Kind != kind) {
			continue
		}
		ids := rank(q.Text)
		s.Queries++
		s.NDCG10 += ndcg(ids, rel, 10)
		s.Recall10 += recall(ids, rel, 10)
	}
	if s.Queries > 0 {
		s.NDCG10 /= float64(s.Queries)
		s.Recall10 /= float64(s.Queries)
	}
	return s
}

func ndcg(ids []string, rel map[string]int, k int) float64 {
	var dcg float64
	for i, id := range ids[:min(k, len(ids))] {
		dcg += float64(rel[id]) / math.Log2(float64(i+2))
	}
	grades := make([]int, 0, len(rel))
	for _, g := range rel {
		grades = append(grades, g)
	}
	slices.SortFunc(grades, func(a, b int) int { return cmp.Compare(b, a) })
	var ideal float64
	for i, g := range grades[:min(k, len(grades))] {
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

func recall(ids []string, rel map[string]int, k int) float64 {
	found := 0
	for _, id := range ids[:min(k, len(ids))] {
		if rel[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(len(rel))
}

// EvalSystem is one ranking system an evaluation compares.
type EvalSystem struct {
	Name string
	// Build indexes the documents and returns the Ranker, and a function
	// to release what Build made.
	Build func(c *Collection, dir string) (Ranker, func(), error)
}

// EvalSystems are the systems Evaluate compares: plain BM25 over the
// tokens before text analysis, SQLite FTS5 with its trigram and unicode61
// tokenizers, and Index.Query.
func EvalSystems() []EvalSystem {
	return []EvalSystem{
		{"bm25", buildBaseline},
		{"fts5-trigram", ftsSystem("trigram")},
		{"fts5-unicode61", ftsSystem("unicode61")},
		{"ours", buildOurs(defaultQuery)},
	}
}

func buildOurs(o queryOptions) func(*Collection, string) (Ranker, func(), error) {
	return func(c *Collection, _ string) (Ranker, func(), error) {
		x := NewIndex()
		for _, d := range c.Docs {
			if o.titleWeight > 0 {
				x.Add(d.ID, indexText(d.Title, d.Text, o.titleWeight))
			} else {
				x.Add(d.ID, d.Body())
			}
		}
		return func(q string) []string { return hitIDs(x.query(q, 10, nil, o)) }, func() {}, nil
	}
}

func hitIDs(hits []Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// EvalResult is the scores of one system on one split of a collection.
type EvalResult struct {
	Collection, Split, System string
	Scores
}

// EvaluateAll runs systems on c, for its dev and test splits, using dir
// for any files they need.
func EvaluateAll(c *Collection, systems []EvalSystem, dir string) ([]EvalResult, error) {
	var out []EvalResult
	for _, s := range systems {
		rank, done, err := s.Build(c, dir)
		if err != nil {
			return nil, fmt.Errorf("building %s on %s: %w", s.Name, c.Name, err)
		}
		for _, split := range []string{"dev", "test"} {
			out = append(out, EvalResult{c.Name, split, s.Name, c.Evaluate(split, "", rank)})
		}
		done()
	}
	return out, nil
}

// FormatResults writes results as a table, one line per collection,
// split and system.
func FormatResults(w io.Writer, results []EvalResult) {
	fmt.Fprintf(w, "%-16s %-5s %-16s %7s %8s %9s\n", "collection", "split", "system", "queries", "nDCG@10", "recall@10")
	for _, r := range results {
		fmt.Fprintf(w, "%-16s %-5s %-16s %7d %8.4f %9.4f\n", r.Collection, r.Split, r.System, r.Queries, r.NDCG10, r.Recall10)
	}
}

// EvalLevers are Index.Query with each of its levers turned off in turn
// (and a few alternative settings), to show what each one brings.
func EvalLevers() []EvalSystem {
	type lever struct {
		name string
		set  func(*queryOptions)
	}
	levers := []lever{
		{"ours", func(*queryOptions) {}},
		{"analysis-only", func(o *queryOptions) { o.stopWords, o.zhStopWords, o.prf = false, false, false }},
		{"-stopwords", func(o *queryOptions) { o.stopWords = false }},
		{"-zhstopwords", func(o *queryOptions) { o.zhStopWords = false }},
		{"-prf", func(o *queryOptions) { o.prf = false }},
		{"prf-rrf", func(o *queryOptions) { o.fusion = "rrf" }},
		{"prf-interp", func(o *queryOptions) { o.fusion = "interp" }},
		{"prf-uni", func(o *queryOptions) { o.fbNoUni = true }},
		{"fbsharp10", func(o *queryOptions) { o.fbSharp = 10 }},
		{"prf-linear", func(o *queryOptions) { o.fbSharp = 0 }},
		{"fbweight0.3", func(o *queryOptions) { o.fbWeight = 0.3 }},
		{"fbidf1", func(o *queryOptions) { o.fbIDF = 1 }},
		{"fb+numbers", func(o *queryOptions) { o.fbNoNum = false }},
		{"fb+zhstop", func(o *queryOptions) { o.fbNoStop = false }},
		{"fbdocs10", func(o *queryOptions) { o.fbDocs = 10 }},
		{"fbterms10", func(o *queryOptions) { o.fbTerms = 10 }},
		{"uni0.5", func(o *queryOptions) { o.uniWeight = 0.5 }},
		{"part0.5", func(o *queryOptions) { o.partWeight = 0.5 }},
		{"-title", func(o *queryOptions) { o.titleWeight = 0 }},
		{"title3", func(o *queryOptions) { o.titleWeight = 3 }},
		{"unicov0.6", func(o *queryOptions) { o.uniCovered = 0.6 }},
		{"unicov0", func(o *queryOptions) { o.uniCovered = 0 }},
		{"zhfbdocs25", func(o *queryOptions) { o.runFbDocs = 25 }},
		{"zhfbterms40", func(o *queryOptions) { o.runFbTerms = 40 }},
		{"zhfbweight0.3", func(o *queryOptions) { o.runFbWeight = 0.3 }},
		{"zhinterp0.7", func(o *queryOptions) { o.runFusion, o.runLambda = "interp", 0.7 }},
		{"cohesion0.2", func(o *queryOptions) { o.cohesion = 0.2 }},
	}
	var out []EvalSystem
	for _, l := range levers {
		o := defaultQuery
		l.set(&o)
		out = append(out, EvalSystem{l.name, buildOurs(o)})
	}
	return out
}
