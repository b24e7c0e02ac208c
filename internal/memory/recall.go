package memory

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// Recall's bounds, so that a walk costs the same in a graph of ten
// entities as in one of a hundred thousand (BenchmarkRecall100k).
const (
	// RecallSeeds is how many entities each query word finds at most:
	// those whose names match it best, at least half as well as the
	// best one.
	RecallSeeds = 8
	// RecallFanout is how many relations a walk follows from one name,
	// each way, each step: the latest recorded. A step from many names
	// follows fewer from each (the reach left over the names, at least
	// 2).
	RecallFanout = 16
	// RecallReach is how many names a walk reaches at most: relations to
	// names past it are not followed, and no step starts once it is
	// reached.
	RecallReach = 64
	// RecallFrontier is how many of the names a step reached the next
	// step goes on from at most: the most relevant.
	RecallFrontier = 16
)

// Recall finds the entities v sees whose names match one of the query
// words, then walks the relations v sees, both ways, depth steps (1 if
// depth < 1, at most MaxDepth). It returns the entities reached, most
// mentioned first, and the relations among them. With a view of several
// writers or scopes, a name has one entity per scope and writer.
func (g *Graph) Recall(v scope.View, query []string, depth int) ([]sdk.Entity, []sdk.Relation, error) {
	ents, rels, err := g.RecallEntries(context.Background(), v, query, depth)
	if err != nil {
		return nil, nil, err
	}
	sort.SliceStable(ents, func(i, j int) bool {
		if ents[i].MentionCount != ents[j].MentionCount {
			return ents[i].MentionCount > ents[j].MentionCount
		}
		return ents[i].Name < ents[j].Name
	})
	outE := make([]sdk.Entity, len(ents))
	for i, e := range ents {
		outE[i] = e.Entity
	}
	outR := make([]sdk.Relation, len(rels))
	for i, r := range rels {
		outR[i] = r.Relation
	}
	return outE, outR, nil
}

// RecallEntries is Recall with each entry's owner, relevance and
// distance, best first (by Score, then mentions, name, scope, writer).
//
// A query word finds names through the shared index, ranked as the
// knowledge base and the document memory rank (see searchAs: stop words
// and Chinese question words dropped, so "小明是谁" looks for "小明";
// Chinese matched by its characters and their pairs: "明" finds "小明"),
// the RecallSeeds best per word (at least half as good as the best;
// for a plugin's view scored over what it sees only).
// The walk then reads, per step, in one query, at most RecallFanout
// relations per name and direction, goes on from the RecallFrontier
// most relevant names a step reached, and stops at RecallReach names. A name reached stands for every
// entity of that name v sees.
func (g *Graph) RecallEntries(ctx context.Context, v scope.View, query []string, depth int) ([]EntityEntry, []RelationEntry, error) {
	depth = min(max(depth, 1), MaxDepth)
	allow := allowed(g.tags, v)
	score := map[int64]float64{}
	var ids []int64
	for _, q := range query {
		if q = strings.TrimSpace(q); q == "" {
			continue
		}
		hits := searchAs(g.idx, v, q, RecallSeeds, allow) // the threshold below sees v's scores only
		for _, h := range hits {
			n, ok := parseID("e:", h.ID)
			if !ok || h.Score < hits[0].Score/2 {
				continue // far weaker than the best match: noise
			}
			if _, seen := score[n]; !seen {
				ids = append(ids, n)
			}
			score[n] = max(score[n], h.Score)
		}
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	seeds, err := g.st.EntitiesByID(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	best := map[string]float64{} // by name
	hop := map[string]int{}
	var frontier []string
	for _, e := range seeds {
		if !v.Sees(e.Writer, scope.Scope(e.Scope)) {
			continue // an index out of step with the table: never show it
		}
		if _, ok := best[e.Name]; !ok {
			frontier = append(frontier, e.Name)
		}
		best[e.Name] = max(best[e.Name], score[e.ID])
	}
	vis := sees(v)
	type relKey struct {
		store.Key
		s, r, t string
	}
	seen := map[relKey]bool{}
	var rels []RelationEntry
	for step := 1; step <= depth && len(frontier) > 0 && len(best) < RecallReach; step++ {
		// The reach left is spread over the frontier: a wide frontier
		// reads fewer relations per name.
		fanout := min(max((RecallReach-len(best))/len(frontier)+1, 2), RecallFanout)
		list, err := g.st.RelationsTouching(ctx, vis, frontier, fanout)

		if err != nil {
			return nil, nil, err
		}
		var next []string
		for _, r := range list {
			k := relKey{r.Key, r.Source, r.Relation, r.Target}
			if seen[k] {
				continue
			}
			from, to := r.Source, r.Target
			if _, ok := best[from]; !ok {
				from, to = to, from
			}
			if _, ok := best[to]; !ok {
				if len(best) >= RecallReach {
					continue
				}
				next = append(next, to)
				best[to], hop[to] = best[from]/2, step
			}
			seen[k] = true
			rels = append(rels, RelationEntry{
				Relation: sdk.Relation{SourceName: r.Source, RelationType: r.Relation, TargetName: r.Target},
				Owner:    owner(r.Key)})
		}
		if len(next) > RecallFrontier { // go on from the best
			sort.SliceStable(next, func(i, j int) bool { return best[next[i]] > best[next[j]] })
			next = next[:RecallFrontier]
		}
		frontier = next
	}
	names := make([]string, 0, len(best))
	for n := range best {
		names = append(names, n)
	}
	all, err := g.st.EntitiesNamed(ctx, vis, names, false)
	if err != nil {
		return nil, nil, err
	}
	ents := make([]EntityEntry, len(all))
	for i, e := range all {
		ents[i] = EntityEntry{Entity: sdk.Entity{Name: e.Name, Type: e.Type, MentionCount: e.Mentions},
			Owner: owner(e.Key), Score: best[e.Name], Hop: hop[e.Name]}
		if s, ok := score[e.ID]; ok {
			ents[i].Score, ents[i].Hop = s, 0
		}
	}
	sort.SliceStable(ents, func(i, j int) bool {
		a, b := ents[i], ents[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.MentionCount > b.MentionCount // then by name, scope, writer, as read
	})
	sortRelations(rels)
	return ents, rels, nil
}

func sortRelations(rels []RelationEntry) {
	slices.SortFunc(rels, func(a, b RelationEntry) int {
		return cmp.Or(strings.Compare(a.SourceName, b.SourceName), strings.Compare(a.RelationType, b.RelationType),
			strings.Compare(a.TargetName, b.TargetName), strings.Compare(string(a.Scope), string(b.Scope)),
			strings.Compare(a.Writer, b.Writer))
	})
}
