package store

import (
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

//go:embed testdata/schema-v9.sql
var schemaV9 string

// A database an earlier Hearth wrote at schema version 9 opens unchanged
// and reads the same through every part of the store.
func TestSchemaV9DatabaseOpens(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, schemaV9); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	s, err := OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
		}
	}
	v, err := s.SchemaVersion(ctx)
	check("schema version", []any{v, err}, []any{migrations[len(migrations)-1].Version, error(nil)})

	sess, err := s.FindSession(ctx, "terminal", "")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := s.RecentMessages(ctx, sess.ID, 10)
	check("messages", []any{msgs, err}, []any{[]Message{
		{Role: "user", Content: "现在几点？"},
		{Role: "assistant", Reasoning: "查时间", ToolCalls: json.RawMessage(`[{"id":"c1","type":"function","function":{"name":"time__now","arguments":"{}"}}]`)},
		{Role: "tool", ToolCallID: "c1", Content: `{"time":"12:00"}`},
		{Role: "assistant", Content: "中午十二点。"},
	}, error(nil)})

	ov, err := s.Overrides(ctx)
	check("overrides", []any{ov, err}, []any{map[string]string{"shop__buy": "ask"}, error(nil)})
	roles, err := s.Roles(ctx)
	check("roles", []any{roles, err}, []any{[]RoleAssignment{{Channel: "qq", Group: "g1", User: "alice", Role: "admin"}}, error(nil)})
	grants, err := s.Grants(ctx)
	check("grants", []any{grants, err}, []any{[]Grant{{Channel: "qq", Role: "member", Effects: []string{"read", "write"}}}, error(nil)})
	at := time.UnixMilli(1767225600000)
	a, err := s.GetApproval(ctx, 1)
	check("approval", []any{a, err}, []any{Approval{ID: 1, Tool: "shop__buy", Effect: "money", Target: "car", ArgsHash: "h",
		Requester: "qq:alice", Session: "qq/g1", Created: at, Expires: at.Add(5 * time.Minute), Status: "allowed", DecidedBy: "user"}, error(nil)})
	audit, err := s.Audit(ctx, AuditQuery{})
	check("audit", []any{audit, err}, []any{[]AuditEntry{{At: at, Session: "qq/g1", Channel: "qq", User: "alice", Role: "admin",
		Actor: "agent", Tool: "shop__buy", Effect: "money", ArgsHash: "h", Decision: "allow", Rule: "ask", DecidedBy: "user",
		Duration: 1500 * time.Millisecond, Outcome: "ok"}}, error(nil)})
	cat, err := s.Catalog(ctx)
	check("catalogue", []any{cat, err}, []any{[]CatalogEntry{{Tool: "weather__query", Plugin: "weather", Effect: "read", Title: "Weather",
		Flags: []string{"untrusted"}, Defaults: map[string]string{"read": "auto"}, Updated: at}}, error(nil)})

	states, err := s.PluginStates(ctx)
	check("plugin states", []any{states, err}, []any{map[string]PluginState{"weather": {Enabled: false, ReloadAt: time.UnixMilli(0)}}, error(nil)})
	owners, err := s.PluginOwners(ctx)
	check("plugin owners", []any{owners, err}, []any{map[string]string{"weather": "weather-1"}, error(nil)})

	val, ok, err := s.Setting(ctx, "weather", "unit")
	check("setting", []any{string(val), ok, err}, []any{`"c"`, true, error(nil)})
	defs, err := s.SettingDefs(ctx)
	check("setting declarations", []any{defs, err}, []any{map[string]map[string]json.RawMessage{
		"weather": {"unit": json.RawMessage(`{"key":"unit","type":"string"}`)}}, error(nil)})
	val, ok, err = s.KVGet(ctx, "weather", "last")
	check("kv", []any{string(val), ok, err}, []any{`{"city":"北京"}`, true, error(nil)})

	g := Key{Scope: "global"}
	ents, err := s.EntitiesNamed(ctx, All, []string{"Alice", "Beijing", "Hearth"}, false)
	check("live entities", []any{len(ents), err}, []any{2, error(nil)})
	alice, err := s.EntitiesNamed(ctx, All, []string{"Alice"}, false)
	check("entity", []any{alice, err}, []any{[]Entity{{ID: 1, Key: g, Name: "Alice", Type: "Person", Mentions: 2}}, error(nil)})
	rels, err := s.RelationsOf(ctx, alice[0])
	check("relations", []any{rels, err}, []any{[]Relation{{Key: g, Source: "Alice", Relation: "lives_in", Target: "Beijing"}}, error(nil)})
	counts, err := s.CountGraph(ctx, All)
	check("graph counts", []any{counts, err}, []any{GraphCounts{Entities: 2, Relations: 1, PurgedEntities: 1, PurgedRelations: 1}, error(nil)})
	docs, err := s.DocsWithID(ctx, All, "d1")
	check("document", []any{len(docs), err}, []any{1, error(nil)})
	if len(docs) == 1 {
		d := docs[0]
		check("document", []any{d.Key, d.Title, d.Content, d.Version, d.Updated.UnixMilli()},
			[]any{g, "北京天气", "晴，25 度", int64(1), int64(1796065588415)})
	}

	traces, err := s.Traces(ctx, TraceFilter{})
	check("traces", []any{len(traces), err}, []any{0, error(nil)})

	// And it is written to as before.
	if err := s.AppendMessages(ctx, sess.ID, []Message{{Role: "user", Content: "again"}}); err != nil {
		t.Fatal(err)
	}
}
