package kernel

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/redact"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A compiled-in tool's DescriptionFunc (PKU harness's Dynamic<string>) is
// asked each time a request is built; "" keeps the registered text.
func TestDynamicDescriptions(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	text := "first"
	def := sdk.ToolDef{Name: "now", Description: "registered", Effect: sdk.EffectRead,
		DescriptionFunc: func() string { return text }}
	h := func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil }
	if err := e.k.RegisterTool("dyn", def, h); err != nil {
		t.Fatal(err)
	}
	e.ask(t, "a")
	text = ""
	e.ask(t, "b")
	reqs := e.srv.Requests()
	for i, want := range []string{"first", "registered"} {
		b, _ := json.Marshal(reqs[i].Tools)
		if !strings.Contains(string(b), `"description":"`+want+`"`) {
			t.Errorf("request %d: %s; want the description %q", i, b, want)
		}
	}
}

// The dynamic descriptions of one tool list are asked concurrently, under
// one budget, and cut at MaxDescription: four tools whose descriptions
// each wait for all four to be asked (one after another, the first would
// wait until the budget ends and none would be used) and are 1 MiB long.
func TestDynamicDescriptionsBounded(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Text: "one"})
	h := func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil }
	var mu sync.Mutex
	asked, all := 0, make(chan struct{})
	for _, n := range []string{"a", "b", "c", "d"} {
		def := sdk.ToolDef{Name: n, Description: "registered", Effect: sdk.EffectRead,
			DescriptionFunc: func() string {
				mu.Lock()
				if asked++; asked == 4 {
					close(all)
				}
				mu.Unlock()
				<-all
				return "dynamic " + strings.Repeat("x", 1<<20)
			}}
		if err := e.k.RegisterTool("slow", def, h); err != nil {
			t.Fatal(err)
		}
	}
	out := e.ask(t, "a")
	reqs := e.srv.Requests()
	if len(reqs) == 0 {
		t.Fatalf("no request: %v", out.Err)
	}
	if len(reqs[0].Tools) != 4 {
		t.Fatalf("%d tools", len(reqs[0].Tools))
	}
	for _, spec := range reqs[0].Tools {
		name, d := toolDescription(spec)
		if !strings.HasPrefix(d, "dynamic x") || len(d) > MaxDescription || !strings.HasSuffix(d, descriptionCut) {
			t.Errorf("%s: description of %d bytes %.40q…: not asked concurrently, or not cut", name, len(d), d)
		}
	}
}

// A static description over MaxDescription is cut too, at a rune
// boundary.
func TestStaticDescriptionCut(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Text: "one"})
	h := func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil }
	long := "x" + strings.Repeat("字", MaxDescription)
	if err := e.k.RegisterTool("big", sdk.ToolDef{Name: "t", Description: long, Effect: sdk.EffectRead}, h); err != nil {
		t.Fatal(err)
	}
	e.ask(t, "a")
	_, d := toolDescription(e.srv.Requests()[0].Tools[0])
	if len(d) > MaxDescription || !utf8.ValidString(d) || !strings.HasSuffix(d, descriptionCut) || !strings.HasPrefix(d, "x字字") {
		t.Errorf("description of %d bytes: %.20q…%q", len(d), d, d[max(0, len(d)-40):])
	}
}

// A tool that is not offered in this turn (another channel's) is not
// asked for its description; one that never answers delays the request
// by describeBudget once and is sent with its registered text, and the
// next request does not ask it again while it hangs.
func TestDynamicDescriptionsOnlyOfferedAndStalled(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	h := func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil }
	var mu sync.Mutex
	calls := map[string]int{}
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	for _, def := range []sdk.ToolDef{
		{Name: "elsewhere", Description: "registered", Effect: sdk.EffectRead, Channels: []string{"other-channel"}},
		{Name: "stalled", Description: "registered", Effect: sdk.EffectRead},
	} {
		def.DescriptionFunc = func() string {
			mu.Lock()
			calls[def.Name]++
			mu.Unlock()
			<-hang
			return "late"
		}
		if err := e.k.RegisterTool("p", def, h); err != nil {
			t.Fatal(err)
		}
	}
	e.ask(t, "a")
	e.ask(t, "b")
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs {
		if len(r.Tools) != 1 || func() string { _, d := toolDescription(r.Tools[0]); return d }() != "registered" {
			t.Errorf("request %d tools %+v", i, r.Tools)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if calls["elsewhere"] != 0 || calls["stalled"] != 1 {
		t.Errorf("description calls %v; want stalled asked once, elsewhere never", calls)
	}
}

// A dynamic description carrying the provider's key reaches the model
// masked, as a tool's result does.
func TestDynamicDescriptionMasked(t *testing.T) {
	const key = "sk-live-0123456789abcdefXYZ"
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "one"})
	src, err := llm.NewSources([]llm.Source{{Name: "fake", BaseURL: srv.URL, APIKey: key, Model: "m"}}, "fake")
	if err != nil {
		t.Fatal(err)
	}
	k := New(src, nil, nil)
	defer k.Close()
	h := func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil }
	def := sdk.ToolDef{Name: "now", Description: "registered", Effect: sdk.EffectRead,
		DescriptionFunc: func() string { return "use the key " + key }}
	if err := k.RegisterTool("dyn", def, h); err != nil {
		t.Fatal(err)
	}
	if out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", ChatID: "c", Text: "hi"}}); out.Err != nil {
		t.Fatal(out.Err)
	}
	_, d := toolDescription(srv.Requests()[0].Tools[0])
	if strings.Contains(d, key) || d != "use the key "+redact.Mask(key) {
		t.Errorf("description %q", d)
	}
}

// toolDescription is the name and description of a tool in a request.
func toolDescription(spec map[string]any) (name, description string) {
	fn, _ := spec["function"].(map[string]any)
	name, _ = fn["name"].(string)
	description, _ = fn["description"].(string)
	return name, description
}
