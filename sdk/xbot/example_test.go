package xbot_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/sdktest"
	"github.com/hearth-agent/hearth/sdk/xbot"
)

// Hello is an xbot plugin ported to Hearth: its Start wraps the PluginSDK
// in an xbot Context and registers xbot tools unchanged.
type Hello struct{ name string }

func (h *Hello) Name() string { return h.name }
func (h *Hello) Stop() error  { return nil }

func (h *Hello) Start(s *sdk.PluginSDK) error {
	pctx := xbot.NewContext(s)
	return pctx.RegisterTool(&xbot.SimplePluginTool{
		Def: xbot.BuildToolDef("hello", "Greet someone by name.",
			xbot.ToolParamDef{Name: "name", Type: "string", Description: "The person to greet"}),
		ExecFn: func(_ context.Context, input string) (*xbot.ToolResult, error) {
			name, err := xbot.ParseToolInputString(input, "name")
			if err != nil {
				name = "World"
			}
			return xbot.NewToolResult("Hello, " + name + "!"), nil
		},
	})
}

// The tool is run here by sdktest, on the path Hearth runs it on; its name
// is namespaced as every Hearth tool's is.
func ExampleNewContext() {
	t := &exampleT{}
	defer t.cleanup()
	h := sdktest.Start(t, "greeter", func(name string, _ map[string]any) (sdk.Plugin, error) {
		return &Hello{name: name}, nil
	}, nil)
	fmt.Println(h.Tools())
	fmt.Println(h.CallTool("hello", map[string]any{"name": "Ada"}).Content)
	fmt.Println(h.CallTool("hello", map[string]any{}).Content)
	// Output:
	// [greeter__hello]
	// Hello, Ada!
	// Hello, World!
}

// exampleT stands in for the *testing.T a test passes to sdktest.Start.
type exampleT struct {
	dir      string
	cleanups []func()
}

func (*exampleT) Helper()                           {}
func (*exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (*exampleT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (t *exampleT) Cleanup(f func())                { t.cleanups = append(t.cleanups, f) }

func (t *exampleT) TempDir() string {
	if t.dir == "" {
		d, err := os.MkdirTemp("", "xbot-example")
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

// HelloWorld is an xbot Go plugin as xbot's own examples write them: a
// Manifest, and Activate registering through the PluginContext.
type HelloWorld struct{}

func (HelloWorld) Manifest() xbot.PluginManifest {
	return xbot.PluginManifest{ID: "xbot.hello-world", Name: "Hello World", Version: "1.0.0", Runtime: xbot.RuntimeNative}
}

func (HelloWorld) Activate(pctx xbot.PluginContext) error {
	return pctx.RegisterTool(&xbot.SimplePluginTool{
		Def: xbot.BuildToolDef("hello", "Greet someone by name.",
			xbot.ToolParamDef{Name: "name", Type: "string", Description: "The person to greet"}),
		ExecFn: func(_ context.Context, input string) (*xbot.ToolResult, error) {
			name, err := xbot.ParseToolInputString(input, "name")
			if err != nil {
				name = "World"
			}
			return xbot.NewToolResult("Hello, " + name + "!"), nil
		},
	})
}

func (HelloWorld) Deactivate(pctx xbot.PluginContext) error {
	pctx.Logger().Info("Goodbye")
	return nil
}

// Adapt runs an unmodified xbot Go plugin on Hearth; here sdktest starts
// it as Hearth would (sdk.RegisterFactory or pluginrpc.Serve in a real
// program).
func ExampleAdapt() {
	t := &exampleT{}
	defer t.cleanup()
	h := sdktest.Start(t, "hello-world", xbot.Adapt(HelloWorld{}), nil)
	fmt.Println(h.Tools())
	fmt.Println(h.CallTool("hello", map[string]any{"name": "Ada"}).Content)
	fmt.Println(xbot.ContextOf(h.Plugin()).PluginID())
	// Output:
	// [hello-world__hello]
	// Hello, Ada!
	// xbot.hello-world
}
