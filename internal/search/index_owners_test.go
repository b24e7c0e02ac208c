package search

import "testing"

func TestOwners(t *testing.T) {
	dir := t.TempDir()
	x := openT(t, dir)
	docs := NewOwners(x, "d")
	a, b := Owner{"global", ""}, Owner{"chat:qq/1", "notes"}
	ta, tb := docs.Tag(a), docs.Tag(b)
	if ta == 0 || tb == 0 || ta == tb || docs.Tag(a) != ta {
		t.Fatalf("tags %d %d", ta, tb)
	}
	if kb := NewOwners(x, "k"); kb.Tag(a) == ta {
		t.Fatal("two kinds share a tag")
	}
	x.Put("d:1", "apple", Meta{Tag: ta})
	x.Put("d:2", "apple", Meta{Tag: tb})
	x.Put("k:1", "apple", Meta{Tag: NewOwners(x, "k").Tag(b)})
	onlyB := docs.Allowed(func(o Owner) bool { return o == b })
	if got := ids(x.Query("apple", 5, onlyB)); len(got) != 1 || got[0] != "d:2" {
		t.Fatalf("filtered search: %v", got)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	// A new process learns the tags from the index's labels.
	y := openT(t, dir)
	defer y.Close()
	again := NewOwners(y, "d")
	if o, ok := again.Of(tb); ok {
		t.Fatalf("unknown tag known: %v", o)
	}
	if !again.Learn(tb) || !again.Learn(ta) {
		t.Fatal("Learn failed")
	}
	if o, ok := again.Of(tb); !ok || o != b {
		t.Fatalf("Of(%d) = %v %v", tb, o, ok)
	}
	if again.Learn(NewOwners(y, "k").Tag(a)) || again.Learn(0) || again.Learn(999) {
		t.Fatal("learned a tag of another kind, or none")
	}
	if again.Tag(b) != tb {
		t.Fatal("the tag changed across processes")
	}
}
