package app

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// factPlugin remembers and recalls through HomeAgent's context-free
// memory APIs; shared says its manifest declares memory.shared.
type factPlugin struct {
	name   string
	shared bool
}

func (p *factPlugin) Name() string { return p.name }
func (p *factPlugin) Stop() error  { return nil }

func (p *factPlugin) Manifest() sdk.Manifest {
	m := sdk.Manifest{ID: p.name, Name: p.name, Version: "1.0.0"}
	if p.shared {
		m.Capabilities = []string{sdk.CapabilityMemoryShared}
	}
	return m
}

func (p *factPlugin) Start(s *sdk.PluginSDK) error {
	err := s.RegisterTool("remember", sdk.ToolDef{Description: "remember", Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"fact": map[string]any{"type": "string"}}}},
		func(args map[string]any) (any, error) {
			fact, _ := args["fact"].(string)
			if err := s.Memory().Commit([]sdk.Triple{{Subject: fact, Relation: "is", Object: "fact"}}); err != nil {
				return nil, err
			}
			if err := s.DocMemory().Insert(&sdk.Doc{ID: "same", Title: fact, Content: fact}); err != nil {
				return nil, err
			}
			return "ok", s.Knowledge().Add("same", fact)
		})
	if err != nil {
		return err
	}
	return s.RegisterTool("recall", sdk.ToolDef{Description: "recall"}, func(map[string]any) (any, error) {
		var found []string
		ents, _, err := s.Memory().Recall([]string{"fact"}, 1)
		for _, e := range ents {
			if e.Name != "fact" {
				found = append(found, "g:"+e.Name)
			}
		}
		for _, d := range s.DocMemory().Query("fact", 10) {
			found = append(found, "d:"+d.Content)
		}
		ks, kerr := s.Knowledge().Search("fact", 10)
		for _, k := range ks {
			found = append(found, "k:"+strings.TrimSpace(k.Content))
		}
		slices.Sort(found)
		return strings.Join(append(found, "."), " "), errors.Join(err, kerr)
	})
}

// TestPluginsSeeOnlyTheirOwnConversationsMemory is the check for
// compiled-in plugins through the real app (SQLite file, data folder):
// two plugins and two groups never see each other's entries; a plugin
// declaring memory.shared reads both plugins' in its conversation only.
func TestPluginsSeeOnlyTheirOwnConversationsMemory(t *testing.T) {
	srv := llmtest.NewServer(t)
	a, err := Open(context.Background(), &Options{DataDir: t.TempDir(), Getenv: func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "sk-test", "HEARTH_MODEL": "m"}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, p := range []*factPlugin{{name: "alpha"}, {name: "beta"}, {name: "reader", shared: true}} {
		if err := a.Kernel.LoadPlugin(p.name, func(string, map[string]any) (sdk.Plugin, error) { return p, nil }, nil); err != nil {
			t.Fatal(err)
		}
	}
	ask := func(group string, calls ...llmtest.Call) map[string]string {
		t.Helper()
		n := len(srv.Requests())
		srv.Push(llmtest.Reply{ToolCalls: calls}, llmtest.Reply{Text: "done"})
		out := a.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "web", ChatID: "c" + group,
			GroupID: group, UserID: "owner", Text: "hi"}})
		if out.Err != nil {
			t.Fatal(out.Err)
		}
		got := map[string]string{}
		for _, m := range srv.Requests()[n+1].Messages {
			if id, ok := m["tool_call_id"].(string); ok {
				got[id], _ = m["content"].(string)
			}
		}
		return got
	}
	call := func(id, tool, fact string) llmtest.Call {
		args, _ := json.Marshal(map[string]string{"fact": fact})
		return llmtest.Call{ID: id, Name: tool, Arguments: string(args)}
	}
	ask("g1", call("a", "alpha__remember", "fact-alpha-1"), call("b", "beta__remember", "fact-beta-1"))
	ask("g2", call("a", "alpha__remember", "fact-alpha-2"))
	got := ask("g1", call("a", "alpha__recall", ""), call("b", "beta__recall", ""), call("r", "reader__recall", ""))
	for id, want := range map[string]string{
		"a": "d:fact-alpha-1 g:fact-alpha-1 k:fact-alpha-1 .",
		"b": "d:fact-beta-1 g:fact-beta-1 k:fact-beta-1 .",
		"r": "d:fact-alpha-1 d:fact-beta-1 g:fact-alpha-1 g:fact-beta-1 k:fact-alpha-1 k:fact-beta-1 .",
	} {
		if got[id] != want {
			t.Errorf("in group 1, %s recalls %q, want %q", id, got[id], want)
		}
	}
	got = ask("g2", call("a", "alpha__recall", ""), call("b", "beta__recall", ""), call("r", "reader__recall", ""))
	for id, want := range map[string]string{"a": "d:fact-alpha-2 g:fact-alpha-2 k:fact-alpha-2 .", "b": ".",
		"r": "d:fact-alpha-2 g:fact-alpha-2 k:fact-alpha-2 ."} {
		if got[id] != want {
			t.Errorf("in group 2, %s recalls %q, want %q", id, got[id], want)
		}
	}
	// The owner's view sees it all, each entry in its group.
	ents, _, err := a.Memory.Entities(context.Background(), scope.Everything(), "", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Scope == scope.Global {
			t.Errorf("entity %q written in a group is global", e.Name)
		}
	}
}
