//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// newChannelPlugin is a child plugin shaped like HomeAgent's qq: it owns
// the channel "im" both ways (text only), relays a person's message into
// it with chan__relay, which returns what the output handler then got,
// and has a write tool chan__note.
func newChannelPlugin(name string, _ map[string]any) (sdk.Plugin, error) {
	delivered := make(chan map[string]any, 8)
	return startPlugin{name, func(s *sdk.PluginSDK) error {
		if err := s.RegisterInputChannel("im", sdk.ChannelDef{}); err != nil {
			return err
		}
		if err := s.RegisterOutputChannel("im", sdk.CapText, "meta: none", sdk.ChannelDef{},
			func(args map[string]any) (any, error) {
				delivered <- args
				return map[string]any{"delivered": args["payload"]}, nil
			}); err != nil {
			return err
		}
		if err := s.RegisterTool("note", sdk.ToolDef{Effect: sdk.EffectWrite}, func(map[string]any) (any, error) {
			return "noted", nil
		}); err != nil {
			return err
		}
		type in struct {
			Chat string `json:"chat"`
			User string `json:"user"`
			Text string `json:"text"`
			Wait bool   `json:"wait,omitempty"`
		}
		return sdk.AddTool(s, sdk.ToolDef{Name: "relay", Effect: sdk.EffectRead},
			func(ctx context.Context, _ *sdk.ToolContext, a in) (map[string]any, error) {
				inj := sdk.Injection{Channel: "im", ChatID: a.Chat, UserID: a.User, Text: a.Text}
				if a.Wait {
					answer, err := s.InjectAndWait(ctx, inj)
					if err != nil {
						return nil, err
					}
					return map[string]any{"answer": answer}, nil
				}
				if err := s.InjectInput(inj); err != nil {
					return nil, err
				}
				select {
				case got := <-delivered:
					return got, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			})
	}}, nil
}

// A child plugin's channel is a Hearth channel: a relayed message is
// answered in the session (im, chat) and the answer comes back through
// the plugin's output handler over channel.send; output_send__im refuses
// what the channel did not declare; a guest's write call is refused and
// a member's asks the owner through the approvals broker.
func TestChildChannelRoundTrip(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng, err := policy.NewEngine(ctx, st, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := llm.NewSources([]llm.Source{{Name: "main", BaseURL: f.srv.URL}}, "main")
	f.k = kernel.New(src, st, &kernel.Options{Policy: eng, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { f.k.Close() })
	f.opts.Host = f.k
	ready(t, f.start(t, "chan", "channel", sdk.CapabilityInjectUser))
	if owner, ok := f.k.ChannelOwner("im"); !ok || owner != "chan" {
		t.Fatalf("channel im: %q %v", owner, ok)
	}

	f.srv.Push(llmtest.Reply{Text: "hello u1"})
	got, isErr := f.call("chan__relay", `{"chat":"c1","user":"u1","text":"hi"}`)
	var args map[string]any
	if err := json.Unmarshal([]byte(got), &args); isErr || err != nil {
		t.Fatalf("relay: %s", got)
	}
	if args["payload"] != "hello u1" || args["chat_id"] != "c1" || args["user_id"] != "u1" || args["final"] != true {
		t.Fatalf("output handler got %v", args)
	}
	if sess, err := st.Session(ctx, "im", "c1"); err != nil || sess.ID == 0 {
		t.Fatalf("session (im, c1): %+v %v", sess, err)
	}

	if got, isErr := f.call("output_send__im", `{"payload":"a.png","type":"image"}`); !isErr || !strings.Contains(got, `cannot send \"image\": it declared text`) {
		t.Fatalf("image to a text channel: %s", got)
	}
	if got, isErr := f.call("output_send__im", `{"payload":"hi there"}`); isErr || !strings.Contains(got, `"delivered":"hi there"`) {
		t.Fatalf("text: %s", got)
	}

	for _, g := range []store.Grant{
		{Role: "plugin:chan", Effects: []string{"read", "write"}},
		{Channel: "im", Role: "member", Effects: []string{"read", "write"}},
	} {
		if err := st.SetGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SetRole(ctx, store.RoleAssignment{Channel: "im", User: "friend", Role: "member"}); err != nil {
		t.Fatal(err)
	}
	if err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if err := eng.SetOverride(ctx, "chan__note", sdk.ModeAsk); err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	var asker policy.Requester
	f.k.SetFallbackApprover(func(_ context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		asked.Add(1)
		asker = req.Requests
		return policy.AllowOnce, nil
	})
	note := llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w", Name: "chan__note", Arguments: `{}`}}}
	f.srv.Push(note, llmtest.Reply{Text: "guest done"}, note, llmtest.Reply{Text: "member done"})
	if got, isErr := f.call("chan__relay", `{"chat":"c2","user":"stranger","text":"note","wait":true}`); isErr || !strings.Contains(got, "guest done") {
		t.Fatalf("guest: %s", got)
	}
	reqs := f.srv.Requests()
	if res := toolContent(reqs[len(reqs)-1], "w"); strings.Contains(res, "noted") || asked.Load() != 0 {
		t.Fatalf("guest's write: %q, asked %d", res, asked.Load())
	}
	if got, isErr := f.call("chan__relay", `{"chat":"c2","user":"friend","text":"note","wait":true}`); isErr || !strings.Contains(got, "member done") {
		t.Fatalf("member: %s", got)
	}
	reqs = f.srv.Requests()
	if res := toolContent(reqs[len(reqs)-1], "w"); !strings.Contains(res, "noted") || asked.Load() != 1 {
		t.Fatalf("member's write: %q, asked %d", res, asked.Load())
	}
	if asker.Plugin != "chan" || asker.User != "friend" || asker.Channel != "im" {
		t.Fatalf("approval asked for %+v", asker)
	}
}

// toolContent is the content of the last tool message answering id in
// req (the session's history may hold earlier ones).
func toolContent(req llmtest.Request, id string) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m["tool_call_id"] == id {
			s, _ := m["content"].(string)
			return s
		}
	}
	return ""
}
