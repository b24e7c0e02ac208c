package main

import (
	"testing"

	"gitcode.com/JianFeeeee/homeagent-sdk/sdk"
)

// The plugin's own test, as a HomeAgent author writes it: sdk.New with
// registrars of the test's own.
func TestGreeter(t *testing.T) {
	tools := map[string]sdk.ToolHandler{}
	var stages []sdk.StageHandler
	s := sdk.New("ha_selftest", nil,
		func(name string, def sdk.ToolDef, h sdk.ToolHandler) error { tools[name] = h; return nil },
		func(stage sdk.Stage, h sdk.StageHandler) { stages = append(stages, h) },
		nil, nil)
	p, err := NewPlugin("ha_selftest", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(s); err != nil {
		t.Fatal(err)
	}
	out, err := tools["greet"](map[string]interface{}{"who": "Ada"})
	if err != nil || out != "hello, Ada" {
		t.Fatalf("greet: %v, %v", out, err)
	}
	if len(stages) != 1 {
		t.Fatalf("%d stage handlers", len(stages))
	}
	ctx := &sdk.StageContext{RawMessage: "ping"}
	if err := stages[0](ctx); err != nil || ctx.Response == nil || *ctx.Response != "pong" {
		t.Fatalf("stage: %v", err)
	}
}
