package mcpserve

import (
	"encoding/json"
	"testing"

	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

func TestAnnotationsFromEffects(t *testing.T) {
	for _, tc := range []struct {
		def                          sdk.ToolDef
		readOnly, destructive, world bool
	}{
		{sdk.ToolDef{Effect: sdk.EffectRead}, true, false, false},
		{sdk.ToolDef{Effect: sdk.EffectRead, Untrusted: true}, true, false, true},
		{sdk.ToolDef{}, false, true, false}, // no effect counts as write
		{sdk.ToolDef{Effect: sdk.EffectWrite}, false, true, false},
		{sdk.ToolDef{Effect: sdk.EffectMoney}, false, true, true},
		{sdk.ToolDef{Effect: sdk.EffectPublic}, false, true, true},
	} {
		a := mcpTool(&tools.Tool{Def: tc.def, Schema: json.RawMessage(`{"type":"object"}`)}).Annotations
		if a.ReadOnlyHint != tc.readOnly || *a.DestructiveHint != tc.destructive || *a.OpenWorldHint != tc.world {
			t.Errorf("%+v: readOnly %v destructive %v openWorld %v", tc.def, a.ReadOnlyHint, *a.DestructiveHint, *a.OpenWorldHint)
		}
	}
}

func TestInputSchemaIsAnObject(t *testing.T) {
	for _, raw := range []string{`{"type":"object","properties":{}}`, `{}`, `{"type":"string"}`, `null`, `not json`} {
		b, _ := json.Marshal(inputSchema(json.RawMessage(raw)))
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || m["type"] != "object" {
			t.Errorf("%s -> %s", raw, b)
		}
	}
}
