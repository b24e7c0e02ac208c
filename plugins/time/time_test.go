package timeplugin

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

var fixed = time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)

func start(t *testing.T, config map[string]any) *sdktest.Harness {
	h := sdktest.Start(t, Name, New, config)
	h.Plugin().(*Plugin).now = func() time.Time { return fixed }
	return h
}

func TestNow(t *testing.T) {
	h := start(t, nil)
	if got := h.Tools(); len(got) != 1 || got[0] != "time__now" {
		t.Fatalf("tools %v", got)
	}
	res := h.CallTool("now", map[string]any{"zone": "Asia/Shanghai"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	var out NowOutput
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatal(err)
	}
	want := NowOutput{Time: "2026-11-30T12:00:00+08:00", Local: "2026-11-30 12:00:00", Weekday: "Monday", Zone: "Asia/Shanghai", Unix: fixed.Unix()}
	if out != want {
		t.Fatalf("got %+v, want %+v", out, want)
	}
	res = h.CallTool("now", map[string]any{"zone": "Mars/Olympus"})
	if !res.IsError || !strings.Contains(res.Content, "unknown time zone") {
		t.Fatalf("bad zone: %+v", res)
	}
	res = h.CallTool("now", map[string]any{"zone": 8})
	if !res.IsError || !strings.Contains(res.Content, `field \"zone\"`) {
		t.Fatalf("bad type: %+v", res)
	}
	def, _ := h.ToolDef("now")
	props := def.Parameters["properties"].(map[string]any)
	if _, ok := props["zone"]; !ok {
		t.Fatalf("inferred schema lacks zone: %v", def.Parameters)
	}
}

func TestPreActionInjectsTime(t *testing.T) {
	h := start(t, map[string]any{"zone": "Asia/Shanghai"})
	sc := h.RunStage(sdk.StagePreAction, &sdk.StageContext{ContextMsgs: []map[string]any{{"role": "user", "content": "今天星期几？"}}})
	if len(sc.ContextMsgs) != 2 {
		t.Fatalf("%v", sc.ContextMsgs)
	}
	got := sc.ContextMsgs[1]["content"].(string)
	if got != "当前时间 (current time): 2026-11-30 12:00 周一 (Monday, Asia/Shanghai)" {
		t.Fatalf("injected %q", got)
	}
	if len(h.Logs()) != 0 {
		t.Fatalf("host complained: %v", h.Logs())
	}
}

func TestBadZoneConfig(t *testing.T) {
	if _, err := New(Name, map[string]any{"zone": "Nowhere/City"}); err == nil {
		t.Fatal("bad configured zone accepted")
	}
}
