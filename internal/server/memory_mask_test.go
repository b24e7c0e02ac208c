package server

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// The memory routes (which the web UI reads) mask what looks like a key
// in documents and in the graph's names: secrets never reach the web UI
// unmasked. The entries themselves stay as stored.
func TestMemoryRoutesMaskKeys(t *testing.T) {
	const key = "sk-proj-Abcdefgh12345678Zyx"
	a := newTestApp(t)
	if err := a.Docs.Insert(scope.Everything(), &sdk.Doc{ID: "k1", Title: "fact", Content: "the billing key is " + key}); err != nil {
		t.Fatal(err)
	}
	if err := a.Memory.Commit(scope.Everything(), []sdk.Triple{{Subject: "billing", Relation: "uses", Object: key}}); err != nil {
		t.Fatal(err)
	}
	_, hs := newTestServer(t, a)
	for _, path := range []string{"/v1/memory/docs", "/v1/memory/docs?q=billing", "/v1/memory/docs/k1",
		"/v1/memory/relations", "/v1/memory/entities", "/v1/memory/entities/billing"} {
		code, body := adminCall(t, hs, "GET", path, "")
		if code != 200 || strings.Contains(body, key) || !strings.Contains(body, "****8Zyx") {
			t.Fatalf("GET %s = %d: %s", path, code, body)
		}
	}
	if d, err := a.Docs.Get(t.Context(), scope.Everything(), "k1"); err != nil || !strings.Contains(d.Content, key) {
		t.Fatalf("the document as stored: %+v, %v", d, err)
	}
}
