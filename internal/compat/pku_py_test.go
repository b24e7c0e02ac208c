//go:build unix

package compat

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// pyRow is one row of the Python compatibility table: a feature (a seed
// name, or what Go child plugins have), the test plugin that uses it, and
// what is checked once Hearth ran it.
type pyRow[S any] struct {
	symbol, plugin, what string
	check                func(t *testing.T, s S)
}

// parityRun is what one turn through the pyparity plugin left behind.
type parityRun struct {
	h       *pyHearth
	results map[string]string // tool results of the owner's turn, by call id
	inj     map[string]string // tool results of the injected turn
	answer  string
}

// The Python SDK has what Go child plugins have, each row run through a
// real Hearth with the plugin as a python3 child.
func TestPythonParity(t *testing.T) {
	h := openPyHearth(t, []string{"pyparity"},
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "src", Name: "pyparity__sources", Arguments: `{}`},
			{ID: "veto", Name: "pyparity__note", Arguments: `{"text":"veto"}`},
			{ID: "forb", Name: "pyparity__note", Arguments: `{"text":"forbidden"}`},
			{ID: "ok", Name: "pyparity__note", Arguments: `{"text":"fine"}`},
			{ID: "relay", Name: "pyparity__relay", Arguments: `{"text":"内部问题"}`},
		}},
		// The injected turn tries a write tool, then answers.
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "injw", Name: "pyparity__note", Arguments: `{"text":"from the plugin"}`}}},
		llmtest.Reply{Text: "内部答复"},
		llmtest.Reply{Text: "好的。"},
	)
	out := h.ask(t, "你好")
	if out.Err != nil || out.Text != "好的。" {
		t.Fatalf("%+v", out)
	}
	run := &parityRun{h: h, results: h.toolResults(t, 3), inj: h.toolResults(t, 2), answer: out.Text}
	rows := []pyRow[*parityRun]{
		{"Services.inject_sync", "pyparity", "a tool's injected turn is answered and the answer comes back",
			func(t *testing.T, r *parityRun) { want(t, r.results["relay"], `{"answer":"内部答复"}`) }},
		{"Services.inject_sync (rights)", "pyparity", "the injected turn runs with the plugin's rights: a write tool is not even offered",
			func(t *testing.T, r *parityRun) {
				if got := r.inj["injw"]; !strings.Contains(got, `unknown tool`) || strings.Contains(got, "saved") {
					t.Errorf("injected write: %s", got)
				}
			}},
		{"Services.list_sources/current_source", "pyparity", "the configured sources and the one in use",
			func(t *testing.T, r *parityRun) {
				has(t, r.results["src"], `"sources":["env"]`)
				has(t, r.results["src"], `"current":"env"`)
			}},
		{"define_plugin(start=)", "pyparity", "start runs after the handshake and its setting is kept",
			func(t *testing.T, r *parityRun) { has(t, r.results["src"], `"started":true`) }},
		{"stages: on_input", "pyparity", "the handler rewrites the input; injected input names its plugin",
			func(t *testing.T, r *parityRun) {
				if !r.h.sawText(t, 0, "你好 (via person)") || !r.h.sawText(t, 1, "内部问题 (via pyparity)") {
					t.Error("on_input did not rewrite both inputs")
				}
			}},
		{"stages: pre_action", "pyparity", "the handler adds a message the model reads",
			func(t *testing.T, r *parityRun) {
				if !r.h.sawText(t, 0, "pyparity stage ran") {
					t.Error("no pre_action message")
				}
			}},
		{"define_stage(own_tools=True)", "pyparity", "a before_toolcall handler of its own tools denies a call",
			func(t *testing.T, r *parityRun) { has(t, r.results["forb"], "pyparity refuses forbidden notes") }},
		{"decide", "pyparity", "a decision hook denies a call with its reason",
			func(t *testing.T, r *parityRun) { has(t, r.results["veto"], "pyparity vetoed it") }},
		{"decide (allow)", "pyparity", "an allowed write runs",
			func(t *testing.T, r *parityRun) { want(t, r.results["ok"], "saved") }},
	}
	for _, row := range rows {
		t.Run(row.symbol, func(t *testing.T) { row.check(t, run) })
	}
}

func want(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func has(t *testing.T, got, part string) {
	t.Helper()
	if !strings.Contains(got, part) {
		t.Errorf("%s does not contain %s", got, part)
	}
}
