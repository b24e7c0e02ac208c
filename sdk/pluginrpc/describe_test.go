package pluginrpc

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

type describePlugin struct{ n int }

func (p *describePlugin) Name() string { return "d" }
func (p *describePlugin) Stop() error  { return nil }
func (p *describePlugin) Start(s *sdk.PluginSDK) error {
	def := sdk.ToolDef{Name: "now", Description: "static", Effect: sdk.EffectRead,
		DescriptionFunc: func() string { p.n++; return "call " + string(rune('0'+p.n)) }}
	return s.RegisterToolContext("now", def, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) { return nil, nil })
}

// A Go tool's DescriptionFunc (PKU harness's Dynamic<string>) goes out as
// dynamicDescription with its first text as the fallback, and answers
// tool.describe with its current text.
func TestServeDynamicDescription(t *testing.T) {
	hr, pw := io.Pipe()
	pr, hw := io.Pipe()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	host := wire.NewConn(hr, hw, quiet)
	var reg wire.ToolDef
	host.Handle(wire.MethodToolsRegister, func(_ context.Context, raw json.RawMessage) (any, error) {
		return struct{}{}, json.Unmarshal(raw, &reg)
	})
	go host.Run()
	served := make(chan error, 1)
	go func() {
		served <- ServeConn(context.Background(), pr, pw, func(string, map[string]any) (sdk.Plugin, error) {
			return &describePlugin{}, nil
		}, quiet)
	}()
	defer func() {
		hw.Close()
		<-served
	}()
	ctx := context.Background()
	var init wire.InitializeResult
	if err := host.Call(ctx, wire.MethodInitialize, wire.InitializeParams{ProtocolVersions: []int{wire.ProtocolVersion}, Plugin: "d"}, &init); err != nil {
		t.Fatal(err)
	}
	if !reg.DynamicDescription || reg.Description != "call 1" {
		t.Fatalf("registered %+v", reg)
	}
	var text wire.TextResult
	if err := host.Call(ctx, wire.MethodToolDescribe, wire.ToolDescribeParams{Tool: "now"}, &text); err != nil || text.Text != "call 2" {
		t.Fatalf("%+v %v", text, err)
	}
	if err := host.Call(ctx, wire.MethodToolDescribe, wire.ToolDescribeParams{Tool: "none"}, &text); err == nil {
		t.Fatal("a tool without a dynamic description answered")
	}
	pw.Close()
}
