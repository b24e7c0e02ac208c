//go:build unix

package compat

import (
	"encoding/json"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A PKU harness plugin as it is written (imports @pku-harness/sdk and
// zod, exports its definition, never calls serve) runs unmodified with
// plugin.json's command `node --import @hearth-agent/plugin-sdk/run.js
// index.js`: its tool answers and its preference is a Hearth setting.
func TestPKUTypeScriptAsWritten(t *testing.T) {
	h := openTSHearth(t, []string{"pkuasis"},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "g", Name: "pkuasis__greet", Arguments: `{"name":"小明"}`}}},
		llmtest.Reply{Text: "好"},
	)
	if err := h.app.Settings.SetJSON("pkuasis", "loud", json.RawMessage(`true`)); err != nil {
		t.Fatal(err)
	}
	if out := h.ask("问候小明"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := h.toolResult(t, 1, "g"); got != "你好，小明！！" {
		t.Fatalf("%q", got)
	}
}
