//go:build unix

package pluginhost

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// memoryPlugin uses the memory and the knowledge base from a child
// process.
type memoryPlugin struct{ name string }

func newMemoryPlugin(name string, _ map[string]any) (sdk.Plugin, error) {
	return &memoryPlugin{name}, nil
}

func (p *memoryPlugin) Name() string { return p.name }
func (p *memoryPlugin) Stop() error  { return nil }

func (p *memoryPlugin) Start(s *sdk.PluginSDK) error {
	err := s.RegisterToolContext("learn", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		if err := s.Memory().Commit([]sdk.Triple{{Subject: "小明", Relation: "喜欢", Object: "猫"}}); err != nil {
			return nil, err
		}
		if err := s.TextMemory().Append(sdk.TextEvent{Role: "user", Content: "小明喜欢猫"}); err != nil {
			return nil, err
		}
		doc := &sdk.Doc{Title: "购物清单", Content: "牛奶、鸡蛋、面包"}
		if err := s.DocMemory().Insert(doc); err != nil {
			return nil, err
		}
		if err := s.Knowledge().Add("猫粮", "小明的猫吃三文鱼味的猫粮。"); err != nil {
			return nil, err
		}
		return doc.ID != "", nil
	})
	if err != nil {
		return err
	}
	return s.RegisterToolContext("recall", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		ents, rels, err := s.Memory().Recall([]string{"小明"}, 1)
		if err != nil {
			return nil, err
		}
		docs := s.DocMemory().Query("鸡蛋", 1)
		kb, err := s.Knowledge().Search("猫粮是什么味的", 1)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"entities": len(ents), "relations": len(rels)}
		if len(docs) > 0 {
			out["doc"] = docs[0].Title
		}
		if len(kb) > 0 {
			out["kb"] = kb[0].Name
		}
		return out, nil
	})
}

func TestChildPluginMemoryAndKnowledge(t *testing.T) {
	f, _ := scopeFixture(t)
	kb := f.opts.Knowledge

	p := f.start(t, "mem", "memory", "memory", "knowledge")
	ready(t, p)
	if got, isErr := f.call("mem__learn", `{}`); isErr || got != "true" {
		t.Fatalf("learn: %s", got)
	}
	got, isErr := f.call("mem__recall", `{}`)
	if want := `{"doc":"购物清单","entities":2,"kb":"猫粮","relations":1}`; isErr || got != want {
		t.Fatalf("recall:\n got %s\nwant %s", got, want)
	}
	// What the child wrote is the host's: in-process plugins see it too.
	if names, _ := kb.List(scope.Everything()); len(names) != 1 || names[0] != "猫粮" {
		t.Fatalf("knowledge on the host: %v", names)
	}

	q := f.start(t, "nomem", "memory")
	ready(t, q)
	if got, isErr := f.call("nomem__learn", `{}`); !isErr || !strings.Contains(got, `add \"memory\" to \"capabilities\"`) {
		t.Fatalf("memory without the group: %s", got)
	}
}
