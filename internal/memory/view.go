package memory

import (
	"errors"
	"strconv"
	"strings"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// Entries as the owner sees them: an SDK record with the scope it
// belongs to and the plugin that wrote it ("" for the owner and Hearth).
// With a view of every writer (scope.Everything, the agent's own recall)
// the same name can come once per scope and writer; these say which is
// which, where the SDK's records cannot.

// Owner is who an entry belongs to.
type Owner struct {
	Scope  scope.Scope `json:"scope"`
	Writer string      `json:"writer"`
}

// EntityEntry is an entity of one owner. Score and Hop are set by
// RecallEntries: the name's relevance to the query (its best search
// score, halved at each step of the walk) and how many relations away
// from a name the query found it is.
type EntityEntry struct {
	sdk.Entity
	Owner
	Score float64 `json:"score,omitzero"`
	Hop   int     `json:"hop,omitzero"`
}

// RelationEntry is a relation of one owner.
type RelationEntry struct {
	sdk.Relation
	Owner
}

// DocEntry is a document of one owner.
type DocEntry struct {
	sdk.Doc
	Owner
}

// Errors for callers to branch on.
var (
	// ErrNoEntity means the named entity is not in the graph memory (or
	// not where the view looks).
	ErrNoEntity = errors.New("no such entity")
	// ErrExists means a rename's new name is another entity's: merge
	// them instead.
	ErrExists = errors.New("an entity with that name exists")
	// ErrNoDoc means the document is not in the document memory (or not
	// where the view looks).
	ErrNoDoc = errors.New("no such document")
	// ErrAmbiguous means a name or id has entries in several scopes or
	// from several writers where the view looks: name the scope and the
	// writer.
	ErrAmbiguous = errors.New("entries in several scopes or from several writers")
	// ErrScope means the view writes to no valid scope.
	ErrScope = errors.New("invalid scope")
)

func owner(k store.Key) Owner { return Owner{Scope: scope.Scope(k.Scope), Writer: k.Writer} }

func scopes(v scope.View) []string {
	if v.AllScopes {
		return nil
	}
	out := make([]string, 0, len(v.Read)) // never nil: nil selects every scope
	for _, s := range v.Read {
		out = append(out, string(s))
	}
	return out
}

// sees is the store's selection of the entries v shows (View.Sees).
func sees(v scope.View) store.Visible {
	vis := store.Visible{Scopes: scopes(v)}
	if !v.AllWriters {
		w := v.Writer
		vis.Writer = &w
	}
	return vis
}

// owns is the store's selection of the entries v may change (View.Owns).
func owns(v scope.View) store.Visible {
	vis := store.Visible{Scopes: scopes(v)}
	if v.Writer != "" || !v.AllWriters {
		w := v.Writer
		vis.Writer = &w
	}
	return vis
}

// writes returns the key of the entries v writes.
func writes(v scope.View) (store.Key, error) {
	if !v.Write.Valid() {
		return store.Key{}, ErrScope
	}
	return store.Key{Scope: string(v.Write), Writer: v.Writer}, nil
}

// allowed returns the filter of the index documents of tags' kind v
// sees.
func allowed(tags *search.Owners, v scope.View) func(search.Meta) bool {
	return tags.Allowed(func(o search.Owner) bool { return v.Sees(o.Writer, scope.Scope(o.Scope)) })
}

// ids of the shared index: "e:<entity id>", "d:<document rid>".
func indexID(prefix string, n int64) string { return prefix + strconv.FormatInt(n, 10) }

func parseID(prefix, id string) (int64, bool) {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	return n, err == nil
}
