package pluginrpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

type policyPlugin struct{ name string }

func (p *policyPlugin) Name() string { return p.name }
func (p *policyPlugin) Stop() error  { return nil }

func (p *policyPlugin) Manifest() sdk.Manifest {
	return sdk.Manifest{ID: p.name, Name: "P", Version: "1.0.0",
		DefaultModes:     map[sdk.Effect]sdk.Mode{sdk.EffectMoney: sdk.ModeAsk},
		InstructionsFunc: func() string { return "dynamic" },
		Context:          func(_ context.Context, in sdk.ContextInput) (string, error) { return "ctx " + in.Query, nil }}
}

func (p *policyPlugin) Start(s *sdk.PluginSDK) error {
	resolve := func(a sdk.Assessment, err error) sdk.ResolveEffectFunc {
		return func(context.Context, map[string]any) (sdk.Assessment, error) { return a, err }
	}
	for name, fn := range map[string]sdk.ResolveEffectFunc{
		"empty":   resolve(sdk.Assessment{}, nil),
		"unknown": resolve(sdk.Assessment{Effect: "teleport"}, nil),
		"fails":   resolve(sdk.Assessment{}, errors.New("no idea")),
		"money":   resolve(sdk.Assessment{Effect: sdk.EffectMoney, Target: &sdk.Target{Label: "bob"}}, nil),
	} {
		def := sdk.ToolDef{Name: name, Effect: sdk.EffectRead, ResolveEffect: fn}
		if err := s.RegisterToolContext(name, def, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) { return nil, nil }); err != nil {
			return err
		}
	}
	s.RegisterDecisionHook(func(context.Context, *sdk.ToolContext, string, map[string]any) (sdk.HookDecision, error) {
		return sdk.HookDecision{}, nil // HomeAgent's zero value
	})
	return nil
}

// What a Go plugin served as a child answers to the policy methods: an
// empty resolved effect is the declared one, an unknown one is write (as
// compiled in), an empty verdict is allow, and the manifest's functions
// become flags the host calls.
func TestServePolicyMethods(t *testing.T) {
	hr, pw := io.Pipe()
	pr, hw := io.Pipe()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	host := wire.NewConn(hr, hw, quiet)
	var tools []wire.ToolDef
	host.Handle(wire.MethodToolsRegister, func(_ context.Context, raw json.RawMessage) (any, error) {
		var d wire.ToolDef
		json.Unmarshal(raw, &d)
		tools = append(tools, d)
		return struct{}{}, nil
	})
	host.Handle(wire.MethodHooksRegister, func(context.Context, json.RawMessage) (any, error) { return struct{}{}, nil })
	go host.Run()
	served := make(chan error, 1)
	go func() {
		served <- ServeConn(context.Background(), pr, pw, func(name string, _ map[string]any) (sdk.Plugin, error) {
			return &policyPlugin{name: name}, nil
		}, quiet)
	}()
	defer func() {
		hw.Close()
		if err := <-served; err != nil {
			t.Error(err)
		}
		pw.Close()
	}()
	ctx := context.Background()
	var init wire.InitializeResult
	if err := host.Call(ctx, wire.MethodInitialize, wire.InitializeParams{ProtocolVersions: []int{wire.ProtocolVersion}, Plugin: "p"}, &init); err != nil {
		t.Fatal(err)
	}
	m := init.Manifest
	if m == nil || !m.HasContext || !m.DynamicInstructions || m.Instructions != "dynamic" || m.DefaultModes[sdk.EffectMoney] != sdk.ModeAsk {
		t.Fatalf("manifest %+v", m)
	}
	for _, d := range tools {
		if !d.HasResolveEffect {
			t.Errorf("%s: hasResolveEffect not sent", d.Name)
		}
	}
	for tool, want := range map[string]string{
		"empty": `{"effect":"read"}`, "unknown": `{"effect":"write"}`, "money": `{"effect":"money","target":{"label":"bob"}}`,
	} {
		var got json.RawMessage
		if err := host.Call(ctx, wire.MethodResolveEffect, wire.ResolveEffectParams{Tool: tool, Args: json.RawMessage(`{}`)}, &got); err != nil || string(got) != want {
			t.Errorf("%s: %s %v, want %s", tool, got, err, want)
		}
	}
	if err := host.Call(ctx, wire.MethodResolveEffect, wire.ResolveEffectParams{Tool: "fails", Args: json.RawMessage(`{}`)}, nil); err == nil || err.Error() != "no idea" {
		t.Errorf("fails: %v", err)
	}
	var d sdk.HookDecision
	if err := host.Call(ctx, wire.MethodHookDecide, wire.HookDecideParams{ID: 1, Tool: "x__y", Args: json.RawMessage(`{}`)}, &d); err != nil || d.Verdict != sdk.VerdictAllow {
		t.Errorf("hook: %+v %v", d, err)
	}
	var text wire.TextResult
	if err := host.Call(ctx, wire.MethodContext, wire.ContextParams{Query: "q"}, &text); err != nil || text.Text != "ctx q" {
		t.Errorf("context: %+v %v", text, err)
	}
	if err := host.Call(ctx, wire.MethodInstructions, struct{}{}, &text); err != nil || text.Text != "dynamic" {
		t.Errorf("instructions: %+v %v", text, err)
	}
}
