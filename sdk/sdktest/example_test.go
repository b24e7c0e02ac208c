package sdktest_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

// Weather is the plugin under test: one typed tool.
type Weather struct{ name string }

func (w *Weather) Name() string { return w.name }
func (w *Weather) Stop() error  { return nil }

// QueryInput is the input of weather__query.
type QueryInput struct {
	City string `json:"city" jsonschema:"the city to report on"`
}

func (w *Weather) Start(s *sdk.PluginSDK) error {
	return sdk.AddTool(s, sdk.ToolDef{Name: "query", Description: "Report a city's weather."},
		func(_ context.Context, _ *sdk.ToolContext, in QueryInput) (map[string]string, error) {
			return map[string]string{"city": in.City, "weather": "晴"}, nil
		})
}

// NewWeather is Weather's factory.
func NewWeather(name string, _ map[string]any) (sdk.Plugin, error) { return &Weather{name: name}, nil }

// In a test, t is the test's *testing.T; Start fails the test if the
// plugin does not start, and stops it at the test's cleanup. Calls take
// Hearth's path: the arguments are checked against the tool's schema.
func ExampleStart() {
	t := &exampleT{}
	defer t.cleanup()

	h := sdktest.Start(t, "weather", NewWeather, nil)
	fmt.Println(h.Tools())
	res := h.CallTool("query", map[string]any{"city": "北京"})
	fmt.Println(res.Content, res.IsError)
	res = h.CallTool("query", map[string]any{"city": 42})
	fmt.Println(res.IsError)
	// Output:
	// [weather__query]
	// {"city":"北京","weather":"晴"} false
	// true
}

// exampleT stands in for the *testing.T a test passes to Start.
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
		d, err := os.MkdirTemp("", "sdktest-example")
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
