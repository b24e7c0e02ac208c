package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

// Greeter is a complete plugin: one typed tool and one stage handler.
type Greeter struct{ name string }

func (g *Greeter) Name() string { return g.name }
func (g *Greeter) Stop() error  { return nil }

// GreetInput is the typed input of greeter__greet; its schema is inferred.
type GreetInput struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

func (g *Greeter) Start(s *sdk.PluginSDK) error {
	s.RegisterStage(sdk.StageBeforeOutput, func(ctx *sdk.StageContext) error {
		ctx.FinalText += " 🙂"
		return nil
	})
	return sdk.AddTool(s, sdk.ToolDef{Name: "greet", Description: "Greet someone by name."},
		func(ctx context.Context, tc *sdk.ToolContext, in GreetInput) (string, error) {
			return "你好, " + in.Name + "!", nil
		})
}

func NewGreeter(name string, _ map[string]any) (sdk.Plugin, error) {
	return &Greeter{name: name}, nil
}

func ExampleAddTool() {
	// In a real plugin this runs in init: sdk.RegisterFactory("greeter", NewGreeter).
	t := newExampleT()
	defer t.cleanup()
	h := sdktest.Start(t, "greeter", NewGreeter, nil)
	fmt.Println(h.Tools())
	fmt.Println(h.CallTool("greet", map[string]any{"name": "小明"}).Content)
	fmt.Println(h.CallTool("greet", map[string]any{}).IsError)
	// Output:
	// [greeter__greet]
	// 你好, 小明!
	// true
}

func ExamplePluginSDK_RegisterTool() {
	t := newExampleT()
	defer t.cleanup()
	h := sdktest.Start(t, "weather", func(name string, _ map[string]any) (sdk.Plugin, error) {
		return &plugin{name, func(s *sdk.PluginSDK) error {
			return s.RegisterTool("query", sdk.ToolDef{
				Description: "查询指定城市的天气",
				Parameters: map[string]any{
					"type":       "object",
					"properties": map[string]any{"city": map[string]any{"type": "string"}},
					"required":   []string{"city"},
				},
			}, func(args map[string]any) (any, error) {
				return map[string]any{"city": args["city"], "weather": "晴"}, nil
			})
		}}, nil
	}, nil)
	fmt.Println(h.CallTool("query", map[string]any{"city": "上海"}).Content)
	// Output: {"city":"上海","weather":"晴"}
}

type plugin struct {
	name  string
	start func(*sdk.PluginSDK) error
}

func (p *plugin) Name() string                 { return p.name }
func (p *plugin) Start(s *sdk.PluginSDK) error { return p.start(s) }
func (p *plugin) Stop() error                  { return nil }

// exampleT stands in for *testing.T in examples, which have none.
type exampleT struct {
	dir      string
	cleanups []func()
}

func newExampleT() *exampleT { return &exampleT{} }

func (t *exampleT) Helper()                           {}
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }

func (t *exampleT) TempDir() string {
	if t.dir == "" {
		d, err := os.MkdirTemp("", "example")
		if err != nil {
			panic(err)
		}
		t.dir = d
	}
	return t.dir
}

func (t *exampleT) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	if t.dir != "" {
		os.RemoveAll(t.dir)
	}
}

func ExamplePluginSDK_InjectAndWait() {
	t := newExampleT()
	defer t.cleanup()
	h := sdktest.StartWith(t, "memo", func(name string, _ map[string]any) (sdk.Plugin, error) {
		return &plugin{name, func(*sdk.PluginSDK) error { return nil }}, nil
	}, nil, &sdktest.Options{Reply: func(in sdk.Injection) string { return "已提醒 (" + in.Source + ")" }})
	// Into the plugin's own channel (the empty channel): answered with the
	// plugin's rights, read-only tools unless the owner grants more.
	answer, err := h.SDK().InjectAndWait(context.Background(), sdk.Injection{Text: "该喝水了"})
	fmt.Println(answer, err)
	// Another channel needs the input.channels capability in the manifest.
	_, err = h.SDK().InjectAndWait(context.Background(), sdk.Injection{Channel: "terminal", Text: "转账"})
	fmt.Println(errors.Is(err, sdk.ErrInjectRefused))
	// Output:
	// 已提醒 (memo) <nil>
	// true
}

// chatBridge is a channel plugin: people's messages come in through its
// channel "chat" and the answers go back out through it.
type chatBridge struct {
	s    *sdk.PluginSDK
	send func(chatID, text string) error // the chat app's API
}

func (c *chatBridge) Name() string { return "chat" }
func (c *chatBridge) Stop() error  { return nil }

func (c *chatBridge) Start(s *sdk.PluginSDK) error {
	c.s = s
	if err := s.RegisterInputChannel("chat", sdk.ChannelDef{}); err != nil {
		return err
	}
	return s.RegisterOutputChannel("chat", sdk.CapText, "meta: unused", sdk.ChannelDef{},
		func(args map[string]any) (any, error) {
			chat, _ := args["chat_id"].(string)
			text, _ := args["payload"].(string)
			return "sent", c.send(chat, text)
		})
}

// received relays a person's message; the answer reaches the output
// handler above. Speaking as the user needs the capability input.user.
func (c *chatBridge) received(chatID, userID, text string) error {
	return c.s.InjectInput(sdk.Injection{Channel: "chat", ChatID: chatID, UserID: userID, Text: text})
}

func ExamplePluginSDK_RegisterOutputChannel() {
	// In a real plugin: sdk.RegisterFactory("chat", ...) returning a
	// *chatBridge; the host calls Start, and the chat app's webhook calls
	// received.
	_ = (&chatBridge{}).received
}

// A tool returns a picture beside its usual value; a model that accepts
// images sees it, another reads the value alone.
func ExampleWithImages() {
	png := []byte("\x89PNG...") // the camera's bytes
	v := sdk.WithImages(map[string]any{"taken": "kitchen"}, []sdk.Image{{MIMEType: "image/png", Data: png}})
	fmt.Println(len(v.(sdk.ImageResult).ResultImages()))
	// Output: 1
}

// A compiled-in plugin registers a model provider from init: its models
// with their published prices, and optionally functions listing its
// models and reading the account balance with the user's key.
func ExampleRegisterProvider() {
	sdk.RegisterProvider("example-cloud", sdk.ProviderDef{
		Name: "Example Cloud", Description: "OpenAI-compatible models from example.com",
		Auth: sdk.AuthAPIKey, DefaultBaseURL: "https://api.example.com/v1", EditableBaseURL: true,
		Models: []sdk.ProviderModel{{ID: "example-large", ContextWindow: 128_000, InputModalities: []string{"text"},
			Pricing: &sdk.ModelPricing{Currency: "USD", InputCacheHit: 0.1, InputCacheMiss: 1, Output: 4,
				Source: "https://example.com/pricing (read 2026-12-01)"}}},
		DefaultModel:   "example-large",
		CredentialHint: "An API key from example.com/keys",
	})
	for _, p := range sdk.RegisteredProviders() {
		if p.ID == "example-cloud" {
			fmt.Println(p.Def.Name, p.Def.DefaultModel)
		}
	}
	// Output: Example Cloud example-large
}
