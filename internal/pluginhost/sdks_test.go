//go:build unix

package pluginhost

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// The Python SDK's example plugin, called end to end by the scripted
// provider through the kernel.
func TestPythonSDKExample(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	f := newFixture(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "q", Name: "pyweather__query", Arguments: `{"city":"北京"}`},
			{ID: "x", Name: "pyweather__query", Arguments: `{"city":"火星"}`},
		}},
		llmtest.Reply{Text: "北京晴。"},
	)
	dir, _ := filepath.Abs("../../examples/python/weather")
	p, err := Start(dir, f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "北京天气？"}})
	if out.Err != nil || out.Text != "北京晴。" {
		t.Fatalf("%+v", out)
	}
	reqs := f.srv.Requests()
	msgs0 := reqs[0].Messages
	if last := msgs0[len(msgs0)-1]["content"]; last != "天气数据来自 pyweather 插件。" {
		t.Fatalf("stage handler: %v", msgs0)
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if id, ok := m["tool_call_id"].(string); ok {
			results[id] = m["content"].(string)
		}
	}
	if results["q"] != `{"city":"北京","weather":"晴","asked_by":"agent"}` {
		t.Fatalf("query: %q", results["q"])
	}
	if !strings.Contains(results["x"], "不支持的城市") {
		t.Fatalf("tool error: %q", results["x"])
	}
	// Cancellation reaches Python: the call times out at 200 ms and the
	// plugin keeps serving.
	if got, isErr := f.call("pyweather__wait", `{}`); !isErr || !strings.Contains(got, "timed out") {
		t.Fatalf("wait: %s", got)
	}
	if got, isErr := f.call("pyweather__query", `{"city":"上海"}`); isErr || !strings.Contains(got, "多云") {
		t.Fatalf("after cancel: %s", got)
	}
	// Arguments are validated by Hearth before Python sees them.
	if got, isErr := f.call("pyweather__query", `{"city": 3}`); !isErr || !strings.Contains(got, `field \"city\"`) {
		t.Fatalf("invalid: %s", got)
	}
}

func TestPythonSDKUnitTests(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	cmd := exec.Command("python3", "-m", "unittest", "-v", "test_hearth_plugin")
	cmd.Dir = "../../sdk/python"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python unit tests failed: %v\n%s", err, out)
	}
}
