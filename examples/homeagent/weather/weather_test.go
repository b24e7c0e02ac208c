package weather

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

func TestWeatherPluginAsDocumented(t *testing.T) {
	h := sdktest.Start(t, "weather", NewPlugin, nil)

	if got := h.Tools(); len(got) != 1 || got[0] != "weather__weather_query" {
		t.Fatalf("tools %v", got)
	}
	res := h.CallTool("weather_query", map[string]any{"city": "北京"})
	if res.IsError || res.Content != `{"city":"北京","temp":25,"weather":"晴"}` {
		t.Fatalf("query: %+v", res)
	}
	res = h.CallTool("weather_query", map[string]any{"city": "火星"})
	if !res.IsError || !strings.Contains(res.Content, "不支持的城市") {
		t.Fatalf("isError map not honored: %+v", res)
	}
	res = h.CallTool("weather_query", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content, "city") {
		t.Fatalf("missing city reached the handler: %+v", res)
	}

	blocked := h.RunStage(sdk.StageOnInput, &sdk.StageContext{UserID: "blocked_user", RawMessage: "hi"})
	if blocked.Response == nil || *blocked.Response != "已被限制使用" {
		t.Fatalf("blacklist: %+v", blocked.Response)
	}
	allowed := h.RunStage(sdk.StageOnInput, &sdk.StageContext{UserID: "alice", RawMessage: "hi"})
	if allowed.Response != nil {
		t.Fatalf("alice blocked")
	}

	sc := h.RunStage(sdk.StagePreAction, &sdk.StageContext{ContextMsgs: []map[string]any{{"role": "user", "content": "hi"}}})
	if len(sc.ContextMsgs) != 2 || !strings.HasPrefix(sc.ContextMsgs[1]["content"].(string), "当前时间: ") {
		t.Fatalf("pre_action: %v", sc.ContextMsgs)
	}
	if !h.SDK().AutoRestart() {
		t.Fatal("SetAutoRestart(true) not kept")
	}
}
