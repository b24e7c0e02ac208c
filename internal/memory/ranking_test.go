package memory

import (
	"context"
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/internal/knowledge"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// TestOneRanking checks that the document memory and graph recall rank
// like the knowledge base: a question's stop words and Chinese question
// words find nothing by themselves, and the owner's view ranks the same
// documents in the same order as the knowledge base does.
func TestOneRanking(t *testing.T) {
	g, d, idx := open(t, openStore(t, t.TempDir()))
	docs := []sdk.Doc{
		{ID: "router", Title: "Router", Content: "Improving wifi throughput: move the router off the floor and pick a free channel."},
		{ID: "chatter", Title: "Notes", Content: "How do I do it? I do what I do, and my way is how I make it."},
		{ID: "pork", Title: "红烧肉", Content: "五花肉焯水后加冰糖和酱油小火慢炖。"},
		{ID: "what", Title: "随笔", Content: "怎么做才好呢？是什么呢？怎么做都是对的。"},
	}
	for i := range docs {
		if err := d.Insert(all, &docs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ q, want string }{
		{"how do I make my wifi faster", "router"},
		{"红烧肉怎么做", "pork"},
	} {
		hits := d.Query(all, c.q, 4)
		if len(hits) == 0 || hits[0].ID != c.want {
			t.Errorf("doc memory %q: %v, want %s first", c.q, docIDs(hits), c.want)
		}
	}

	// The knowledge base, on the same index, with the same texts: the
	// same order.
	kb, err := knowledge.Open(t.TempDir(), &knowledge.Options{Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	defer kb.Close()
	<-kb.Ready()
	for _, doc := range docs {
		if err := kb.Add(scope.Everything(), doc.ID, "# "+doc.Title+"\n"+doc.Content); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"how do I make my wifi faster", "红烧肉怎么做"} {
		var fromKB []string
		for _, h := range kb.Find(all, q, 4) {
			fromKB = append(fromKB, h.Name)
		}
		if got := docIDs(d.Query(all, q, 4)); len(got) == 0 || got[0] != fromKB[0] {
			t.Errorf("%q: doc memory %v, knowledge %v", q, got, fromKB)
		}
	}

	// Graph recall: "谁" and "是" of "小明是谁" are question and function
	// words, not names; the game "谁是卧底" is not recalled for it.
	if err := g.Commit(all, []sdk.Triple{
		{Subject: "小明", Relation: "喜欢", Object: "猫"},
		{Subject: "老王", Relation: "玩", Object: "谁是卧底"},
	}); err != nil {
		t.Fatal(err)
	}
	ents, _, err := g.RecallEntries(context.Background(), all, []string{"小明是谁"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var seeds []string
	for _, e := range ents {
		if e.Hop == 0 {
			seeds = append(seeds, e.Name)
		}
	}
	if !slices.Equal(seeds, []string{"小明"}) {
		t.Errorf("recall of 小明是谁 found %v, want [小明]", seeds)
	}
}

func docIDs(list []*sdk.Doc) []string {
	var out []string
	for _, d := range list {
		out = append(out, d.ID)
	}
	return out
}
