//go:build unix

package compat

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// What Go child plugins have, from a TypeScript plugin run by Hearth:
// input.injectSync answers from the plugin's own conversation (with the
// plugin's rights), input.inject into another channel is refused without
// the input.channels group, and the llm group lists the model sources.
func TestPKUTypeScriptInjectAndLLM(t *testing.T) {
	h := openTSHearth(t, []string{"pkuinject"},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "r1", Name: "pkuinject__relay", Arguments: `{}`}}},
		llmtest.Reply{Text: "内部回答"},
		llmtest.Reply{Text: "完成"},
	)
	if out := h.ask("转述一下"); out.Err != nil || out.Text != "完成" {
		t.Fatalf("%+v", out)
	}
	if !strings.Contains(h.request(t, 1), "内部问题") {
		t.Fatalf("the injected turn did not reach the model: %s", h.request(t, 1))
	}
	var got struct {
		Answer  string   `json:"answer"`
		Sources []string `json:"sources"`
		Current string   `json:"current"`
		Refused string   `json:"refused"`
	}
	if err := json.Unmarshal([]byte(h.toolResult(t, 2, "r1")), &got); err != nil {
		t.Fatal(err)
	}
	if got.Answer != "内部回答" || len(got.Sources) == 0 || !slices.Contains(got.Sources, got.Current) {
		t.Fatalf("%+v", got)
	}
	if !strings.Contains(got.Refused, "input.channels") {
		t.Fatalf("injecting into the owner's terminal was not refused: %+v", got)
	}
}
