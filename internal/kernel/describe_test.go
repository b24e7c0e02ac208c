package kernel

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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
