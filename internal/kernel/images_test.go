package kernel

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// seeing is a provider whose model accepts images, or not.
type seeing struct {
	*llm.Client
	accepts bool
}

func (s seeing) AcceptsImages() bool { return s.accepts }

// snapshot is a tool result with a picture, as an MCP tool's is.
type snapshot struct {
	Text string `json:"text"`
}

func (snapshot) ResultImages() []sdk.Image {
	return []sdk.Image{{MIMEType: "image/png", Data: []byte("PNG")}}
}

func imageKernel(t *testing.T, accepts bool, srv *llmtest.Server) *Kernel {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.DiscardHandler)
	eng, err := policy.NewEngine(ctx, st, log)
	if err != nil {
		t.Fatal(err)
	}
	eng.LocalChannels = append(eng.LocalChannels, "test")
	k := New(seeing{&llm.Client{BaseURL: srv.URL, Model: "test", Backoff: time.Millisecond}, accepts}, st,
		&Options{Logger: log, Policy: eng})
	t.Cleanup(func() { k.Close() })
	load(t, k, "cam", func(s *sdk.PluginSDK) error {
		return sdk.AddTool(s, sdk.ToolDef{Name: "shot", Description: "a picture", Effect: sdk.EffectRead},
			func(context.Context, *sdk.ToolContext, struct{}) (snapshot, error) {
				return snapshot{Text: "a red dot on white"}, nil
			})
	})
	return k
}

func TestToolImagesToModel(t *testing.T) {
	for _, accepts := range []bool{true, false} {
		srv := llmtest.NewServer(t,
			llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "cam__shot", Arguments: `{}`}}},
			llmtest.Reply{Text: "a red dot"},
			llmtest.Reply{Text: "yes"},
		)
		k := imageKernel(t, accepts, srv)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, q := range []string{"what do you see?", "sure?"} {
			if out := k.Ask(ctx, Input{Injection: sdk.Injection{Channel: "test", Text: q}}); out.Err != nil {
				t.Fatal(out.Err)
			}
		}
		reqs := srv.Requests()
		second := reqs[1].Messages
		var roles []string
		for _, m := range second {
			roles = append(roles, m["role"].(string))
		}
		want := "system,user,assistant,tool"
		if accepts {
			want += ",user"
		}
		if got := strings.Join(roles, ","); got != want {
			t.Fatalf("accepts %v: roles %s, want %s", accepts, got, want)
		}
		if tm := second[3]; tm["content"] != `{"text":"a red dot on white"}` {
			t.Errorf("tool message %v", tm)
		}
		if accepts {
			wantParts := []any{
				map[string]any{"type": "text", "text": "Images the tools returned:"},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,UE5H"}},
			}
			if got := second[4]["content"]; !reflect.DeepEqual(got, wantParts) {
				b, _ := json.Marshal(got)
				t.Errorf("image message content %s", b)
			}
		}
		// The next turn has the tools' text, not the images: they are not
		// kept in the history.
		b, _ := json.Marshal(reqs[2].Messages)
		if strings.Contains(string(b), "image_url") || strings.Contains(string(b), "Images the tools returned") {
			t.Errorf("accepts %v: images in the next turn's history: %s", accepts, b)
		}
	}
}
