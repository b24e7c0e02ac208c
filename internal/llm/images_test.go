package llm

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

func TestImagesAsContentParts(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "a red dot"})
	msgs := []Message{
		{Role: "user", Content: "what is it?"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "cam__shot", Arguments: "{}"}}}},
		{Role: "tool", ToolCallID: "c1", Content: "one picture"},
		{Role: "user", Content: "Images the tools returned:", Images: []Image{
			{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
			{MIMEType: "image/jpeg", Data: []byte{0xff, 0xd8}},
		}},
	}
	if _, err := client(srv).Chat(context.Background(), &Request{Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0].Messages
	want := []map[string]any{
		{"role": "user", "content": "what is it?"},
		{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": "c1", "type": "function", "function": map[string]any{"name": "cam__shot", "arguments": "{}"}}}},
		{"role": "tool", "tool_call_id": "c1", "content": "one picture"},
		{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "Images the tools returned:"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORw=="}},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/jpeg;base64,/9g="}},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("messages sent:\n%s\nwant:\n%s", g, w)
	}
}

func TestModelAcceptsImages(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-4o": true, "GPT-4o-mini": true, "openai/gpt-4.1": true, "gpt-5-mini": true,
		"claude-sonnet-4": true, "gemini-2.5-flash": true, "qwen-vl-max": true, "Qwen/Qwen2.5-VL-72B-Instruct": true,
		"glm-4v-plus": true, "llava:13b": true,
		"deepseek-chat": false, "deepseek-reasoner": false, "qwen-plus": false, "glm-4-plus": false,
		"kimi-k2": false, "gpt-3.5-turbo": false, "": false,
	} {
		if got := ModelAcceptsImages(model); got != want {
			t.Errorf("ModelAcceptsImages(%q) = %v, want %v", model, got, want)
		}
	}
}

func TestSourceImagesSetting(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		src  Source
		want bool
	}{
		{Source{Model: "deepseek-chat"}, false},
		{Source{Model: "deepseek-chat", Images: &yes}, true},
		{Source{Model: "gpt-4o", Images: &no}, false},
		{Source{Model: "gpt-4o"}, true},
	} {
		s, err := NewSources([]Source{{Name: "a", BaseURL: "http://127.0.0.1:1", Model: tc.src.Model, Images: tc.src.Images}}, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := s.AcceptsImages(); got != tc.want {
			t.Errorf("%+v: AcceptsImages = %v, want %v", tc.src, got, tc.want)
		}
	}
	if (&Sources{}).AcceptsImages() {
		t.Error("no current source accepts images")
	}
}
