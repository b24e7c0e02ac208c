//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// waitFile waits for a file a plugin writes (renamed into place whole).
func waitFile(t *testing.T, path string) string {
	t.Helper()
	var b []byte
	eventually(t, "the plugin writes "+filepath.Base(path), func() bool {
		var err error
		b, err = os.ReadFile(path)
		return err == nil
	})
	return string(b)
}

// An xbot channel plugin of our own, shaped like xbot's echo-channel: a
// person's message (send_inbound) reaches the session of its chat in the
// person's name, capped by their role; the answer goes back with
// channel_send; its channel tool runs through execute_tool.
func TestXbotChannelPlugin(t *testing.T) {
	needProgram(t, "python3")
	f := newFixture(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "s", Name: "com-example-py-echo-channel__pyecho_shout", Arguments: `{"text":"hi"}`},
			{ID: "b", Name: "shop__buy", Arguments: `{}`},
		}},
		llmtest.Reply{Text: "the answer"},
	)
	if err := f.k.RegisterTool("shop", sdk.ToolDef{Name: "buy", Effect: sdk.EffectMoney},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
			return "bought", nil
		}); err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("testdata/xbot-echochan")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	port := waitFile(t, filepath.Join(f.data, "plugin_data", "com-example-py-echo-channel", "port"))
	base := "http://127.0.0.1:" + port

	resp, err := http.Post(base+"/message?chat=room1&user=alice", "text/plain", strings.NewReader("shout hi and buy"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get(base + "/history?n=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var h struct {
		Answers []struct {
			ChatID  string `json:"chat_id"`
			Content string `json:"content"`
			Final   string `json:"final"`
		} `json:"answers"`
		Config map[string]string `json:"config"`
	}
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if len(h.Answers) != 1 || h.Answers[0].ChatID != "room1" || h.Answers[0].Content != "the answer" || h.Answers[0].Final != "true" {
		t.Fatalf("delivered %s", body)
	}
	if h.Config["greeting"] != "hello" || h.Config["enabled"] != "true" {
		t.Fatalf("channel_config %v", h.Config)
	}

	reqs := f.srv.Requests()
	if sys := reqs[0].Messages[0]["content"].(string); !strings.Contains(sys, "Answer the echo channel briefly.") {
		t.Errorf("channel_prompt not in the system prompt: %q", sys)
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if id, ok := m["tool_call_id"].(string); ok {
			results[id] = m["content"].(string)
		}
	}
	// alice is a guest on pyecho: her relayed message may not run a tool
	// of unknown effect nor spend money.
	if strings.Contains(results["s"], "HI!") || strings.Contains(results["b"], "bought") {
		t.Errorf("a guest's relayed message ran tools: %q", results)
	}

	// In its channel the channel tool runs in the plugin (execute_tool).
	tool, ok := f.k.Tools().Lookup("com-example-py-echo-channel__pyecho_shout")
	if !ok {
		t.Fatal("channel tool not registered")
	}
	if r := tool.Call(context.Background(), &sdk.ToolContext{Actor: sdk.ActorAgent, Channel: "pyecho"}, json.RawMessage(`{"text":"hi"}`)); r.IsError || !strings.Contains(r.Content, "HI!") {
		t.Errorf("channel tool: %+v", r)
	}
	// The channel tool is for its channel only.
	if got, isErr := f.call("com-example-py-echo-channel__pyecho_shout", `{"text":"x"}`); !isErr || !strings.Contains(got, "only for channel pyecho") {
		t.Errorf("outside its channel: %q", got)
	}
}

// A channel plugin that never answers activate runs at once, as a
// channel; its web_ui declaration reaches the widget board.
func TestXbotChannelPluginWithoutActivate(t *testing.T) {
	needProgram(t, "python3")
	f := newFixture(t)
	f.opts.Widgets = NewWidgetBoard()
	dir, _ := filepath.Abs("testdata/xbot-uichan")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	eventually(t, "the channel tool is registered", func() bool {
		_, ok := f.k.Tools().Lookup("com-example-ui-channel__ui_ping")
		return ok
	})
	eventually(t, "web_ui reaches the board", func() bool {
		ws := f.opts.Widgets.All()
		return len(ws) == 1 && ws[0].Type == WidgetBadge && ws[0].Props.Text == "ok"
	})
	if owner, ok := f.k.ChannelOwner("uichan"); !ok || owner != "com-example-ui-channel" {
		t.Fatalf("channel owner %q %v", owner, ok)
	}
}
