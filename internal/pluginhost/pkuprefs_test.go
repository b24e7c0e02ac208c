//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// serveRawPrefs speaks the PKU parts of the protocol by hand: its
// preference "unit" refuses null (it keeps "c"), and its tool "clock" has
// a dynamic description far larger than the kernel uses.
func serveRawPrefs() {
	conn := wire.NewConn(os.Stdin, os.Stdout, slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	conn.Handle(wire.MethodInitialize, func(ctx context.Context, _ json.RawMessage) (any, error) {
		def := wire.ToolDef{ToolDef: sdk.ToolDef{Name: "clock", Description: "a clock", Effect: sdk.EffectRead}, DynamicDescription: true}
		if err := conn.Call(ctx, wire.MethodToolsRegister, def, nil); err != nil {
			return nil, err
		}
		m := &wire.Manifest{Manifest: sdk.Manifest{ID: "rawprefs", Name: "rawprefs", Version: "1.0.0"},
			PKUManifest: wire.PKUManifest{Preferences: map[string]wire.PreferenceDef{"unit": {Title: "Unit", Kind: "choice",
				Options: []wire.PreferenceOption{{Value: "c", Label: "°C"}, {Value: "f", Label: "°F"}}}}}}
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Name: "rawprefs", Manifest: m, AutoRestart: true}, nil
	})
	conn.Handle(wire.MethodPreferenceSet, func(_ context.Context, raw json.RawMessage) (any, error) {
		var p wire.PreferenceParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		if string(p.Value) == "null" {
			return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: "unit: pick c or f"}
		}
		return struct{}{}, nil
	})
	conn.Handle(wire.MethodPreferenceGet, func(context.Context, json.RawMessage) (any, error) {
		return wire.PreferenceResult{Value: json.RawMessage(`"c"`)}, nil
	})
	conn.Handle(wire.MethodToolDescribe, func(context.Context, json.RawMessage) (any, error) {
		return wire.TextResult{Text: strings.Repeat("描", 100<<10)}, nil
	})
	conn.Handle(wire.MethodPing, func(context.Context, json.RawMessage) (any, error) { return "pong", nil })
	conn.Run()
	os.Exit(0)
}

// A stored reset (null) that the plugin refuses at start is replaced by
// the value the plugin keeps; a dynamic description is kept no longer
// than the kernel uses.
func TestPKUPreferenceResetRefusedAndDescriptionCapped(t *testing.T) {
	f := newFixture(t)
	svc := settings.New(openStore(t, f.data), f.data)
	f.opts.Settings = svc
	if err := svc.SetJSON("rawprefs", "unit", json.RawMessage(`null`)); err != nil {
		t.Fatal(err)
	}
	ready(t, f.start(t, "rawprefs", "rawprefs"))
	if raw, ok, err := svc.Value("rawprefs", "unit"); err != nil || !ok || string(raw) != `"c"` {
		t.Errorf("stored %s, %v, %v; want the plugin's \"c\"", raw, ok, err)
	}
	tool, ok := f.k.Tools().Lookup("rawprefs__clock")
	if !ok || tool.Def.DescriptionFunc == nil {
		t.Fatalf("%+v", tool)
	}
	if d := tool.Def.DescriptionFunc(); len(d) > kernel.MaxDescription+len("…") || !strings.HasPrefix(d, "描描") {
		t.Errorf("kept a description of %d bytes", len(d))
	}
}
