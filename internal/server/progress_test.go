package server

import (
	"context"
	"reflect"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// progressPlugin has a tool that reports progress, with the token in its
// message.
type progressPlugin struct{ secret string }

func (progressPlugin) Name() string { return "work" }
func (progressPlugin) Stop() error  { return nil }
func (p progressPlugin) Start(s *sdk.PluginSDK) error {
	return sdk.AddTool(s, sdk.ToolDef{Name: "long", Description: "long work", Effect: sdk.EffectRead},
		func(_ context.Context, tc *sdk.ToolContext, _ struct{}) (string, error) {
			tc.Progress(3, 10, "Processing "+p.secret)
			return "ok", nil
		})
}

// TestToolProgressEvent checks the tool.progress event of the event
// stream: its JSON, its place (after tool.started, before tool.finished)
// and the token masked in its message.
func TestToolProgressEvent(t *testing.T) {
	const tok = "api-token-Zq3xW9vB7nM2kL5pR8tY"
	c := newChat(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "work__long", Arguments: `{}`}}},
		llmtest.Reply{Text: "done"})
	c.a.Sources.Secrets().Add(tok)
	err := c.a.Kernel.LoadPlugin("work", func(string, map[string]any) (sdk.Plugin, error) { return progressPlugin{tok}, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(sess.ID)
	stream := openSSE(t, c.hs, path+"/events")
	call[Answer](t, c.hs, "POST", path+"/messages", SendMessage{Text: "go", Wait: true}, 200)
	evs := stream.until(t, EvTurnFinished)
	var tools []string
	var progress *Event
	for _, ev := range evs {
		switch ev.name {
		case EvToolStarted, EvToolProgress, EvToolFinished:
			tools = append(tools, ev.name)
		}
		if ev.name == EvToolProgress {
			progress = &ev.data
		}
	}
	if want := []string{EvToolStarted, EvToolProgress, EvToolFinished}; !reflect.DeepEqual(tools, want) {
		t.Fatalf("tool events %v, want %v", tools, want)
	}
	want := &Progress{Done: 3, Total: 10, Message: "Processing " + maskedToken(c, tok)}
	if progress.CallID != "c1" || progress.Tool != "work__long" || !reflect.DeepEqual(progress.Progress, want) {
		t.Errorf("tool.progress %+v (progress %+v), want %+v", progress, progress.Progress, want)
	}
}

func maskedToken(c *chat, tok string) string {
	m := c.a.Sources.Secrets().String(tok)
	if m == tok {
		panic("the token is not masked")
	}
	return m
}
