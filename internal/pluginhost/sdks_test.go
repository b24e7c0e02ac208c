//go:build unix

package pluginhost

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/scaffold"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// The Python SDK's example plugin, called end to end by the scripted
// provider through the kernel.
func TestPythonSDKExample(t *testing.T) {
	needProgram(t, "python3")
	f := newFixture(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "q", Name: "pyweather__query", Arguments: `{"city":"北京"}`},
			{ID: "x", Name: "pyweather__query", Arguments: `{"city":"火星"}`},
		}},
		llmtest.Reply{Text: "北京晴。"},
	)
	dir, _ := filepath.Abs("../../examples/python/weather")
	p, err := Start(dir, &f.opts)
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
	needProgram(t, "python3")
	cmd := exec.Command("python3", "-m", "unittest", "-v", "test_hearth_plugin")
	cmd.Dir = "../../sdk/python"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python unit tests failed: %v\n%s", err, out)
	}
}

// needProgram skips a test whose language runtime is not installed, except
// in CI, whose machines have python3 and node: there it fails.
func needProgram(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed on the CI machine", name)
		}
		t.Skipf("%s is not installed", name)
	}
}

// nodeSDKEnv is the environment node needs to run the TypeScript SDK from
// this checkout: this process's after `npm ci --prefix sdk/typescript`,
// else with zod as Hearth provides it to child plugins.
func nodeSDKEnv(t *testing.T) []string {
	t.Helper()
	needProgram(t, "node")
	if _, err := os.Stat("../../sdk/typescript/node_modules/zod"); err == nil {
		return os.Environ()
	}
	root, err := scaffold.Provide(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), scaffold.Env(root)...)
}

func TestTypeScriptSDKUnitTests(t *testing.T) {
	cmd := exec.Command("node", "--test", "test/")
	cmd.Env = nodeSDKEnv(t)
	cmd.Dir = "../../sdk/typescript"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node tests failed: %v\n%s", err, out)
	}
}

// The TypeScript SDK's example plugin, called end to end. Hearth
// provides the SDK and zod (internal/scaffold), so it runs without npm.
func TestTypeScriptSDKExample(t *testing.T) {
	needProgram(t, "node")
	f := newFixture(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "q", Name: "tsweather__query", Arguments: `{"city":"上海"}`},
			{ID: "x", Name: "tsweather__query", Arguments: `{"city":"火星"}`},
		}},
		llmtest.Reply{Text: "上海多云。"},
	)
	dir, _ := filepath.Abs("../../examples/typescript/weather")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "上海天气？"}})
	if out.Err != nil || out.Text != "上海多云。" {
		t.Fatalf("%+v", out)
	}
	reqs := f.srv.Requests()
	msgs0 := reqs[0].Messages
	if last := msgs0[len(msgs0)-1]["content"]; last != "天气数据来自 tsweather 插件。" {
		t.Fatalf("stage handler: %v", msgs0)
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if id, ok := m["tool_call_id"].(string); ok {
			results[id] = m["content"].(string)
		}
	}
	if results["q"] != `{"city":"上海","weather":"多云","asked_by":"agent"}` {
		t.Fatalf("query: %q", results["q"])
	}
	if !strings.Contains(results["x"], "不支持的城市") {
		t.Fatalf("tool error: %q", results["x"])
	}
	tools := f.k.Tools()
	tool, ok := tools.Lookup("tsweather__query")
	if !ok || tool.Def.Effect != sdk.EffectRead || tool.Def.Title != "查询天气" {
		t.Fatalf("registered %+v", tool)
	}
}

// The bank plugin of the conformance test, written with the TypeScript
// SDK, makes the decisions the Go plugin makes compiled in.
func TestTypeScriptSDKPolicyConformance(t *testing.T) {
	needProgram(t, "node") // Hearth provides zod when npm did not
	_, compiled := compiledBank(t)
	dir, _ := filepath.Abs("testdata/tsbank")
	_, child, _ := childBank(t, dir)
	compareConformance(t, compiled, child)
}

// The same in Python.
func TestPythonSDKPolicyConformance(t *testing.T) {
	needProgram(t, "python3")
	_, compiled := compiledBank(t)
	dir, _ := filepath.Abs("testdata/pybank")
	_, child, _ := childBank(t, dir)
	compareConformance(t, compiled, child)
}
