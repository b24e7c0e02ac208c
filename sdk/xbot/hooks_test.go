package xbot_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/xbot"
)

// misbehave is a hook's way to fail: "error", "panic" or "hang" (never
// answers, whatever its context says, until the test ends).
func misbehave(t *testing.T, how string) xbot.HookHandler {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return func(context.Context, *xbot.HookPayload) (*xbot.HookResult, error) {
		switch how {
		case "error":
			return nil, errors.New("filter database gone")
		case "panic":
			panic("filter bug")
		}
		<-release
		return &xbot.HookResult{Decision: xbot.DecisionAllow}, nil
	}
}

// startHooked activates a plugin whose hooks all misbehave as how says,
// with a short hook deadline for "hang".
func startHooked(t *testing.T, how string, register func(xbot.PluginContext, xbot.HookHandler) error) (*xbot.Context, func(sdk.Stage, *sdk.StageContext) *sdk.StageContext, func() []string) {
	t.Helper()
	h, c := start(t, func(pc xbot.PluginContext) error {
		xbot.SetHookTimeout(pc.(*xbot.Context), time.Millisecond)
		return register(pc, misbehave(t, how))
	})
	return c, h.RunStage, h.Logs
}

func TestUserPromptFailsClosed(t *testing.T) {
	for _, how := range []string{"error", "panic", "hang"} {
		t.Run(how, func(t *testing.T) {
			_, run, logs := startHooked(t, how, func(c xbot.PluginContext, h xbot.HookHandler) error { return c.OnUserPrompt(h) })
			sc := run(sdk.StageOnInput, &sdk.StageContext{Channel: "qq", ChatID: "g1", RawMessage: "hello"})
			if sc.Response == nil {
				t.Fatal("the message went through a failed UserPromptSubmit hook")
			}
			if r := *sc.Response; !strings.Contains(r, "plugin x.test could not check") || !strings.Contains(r, "插件 x.test") || strings.Contains(r, "filter") {
				t.Errorf("refusal %q", r)
			}
			if l := strings.Join(logs(), "\n"); strings.Contains(l, "stage handler failed") {
				t.Errorf("the failure reached the pipeline instead of being answered:\n%s", l)
			}
		})
	}
}

func TestUserPromptPassesWhenHookAllows(t *testing.T) {
	h, _ := start(t, func(c xbot.PluginContext) error {
		return c.OnUserPrompt(func(context.Context, *xbot.HookPayload) (*xbot.HookResult, error) { return nil, nil })
	})
	if sc := h.RunStage(sdk.StageOnInput, &sdk.StageContext{RawMessage: "hello"}); sc.Response != nil {
		t.Errorf("an allowing hook refused: %q", *sc.Response)
	}
}

// TestStageHooksBounded checks that PostToolUse, its failure form and
// AgentStop hooks that fail, panic or hang leave the turn as it was: the
// pipeline logs the failure and goes on.
func TestStageHooksBounded(t *testing.T) {
	call := func(success bool) func() *sdk.StageContext {
		return func() *sdk.StageContext {
			return &sdk.StageContext{ToolCalls: []sdk.ToolCall{{Name: "fs__ls", Plugin: "fs"}}, ToolResults: []sdk.ToolResult{{Success: success, Result: "a b"}}}
		}
	}
	cases := []struct {
		event xbot.HookEvent
		stage sdk.Stage
		sc    func() *sdk.StageContext
	}{
		{xbot.HookPostToolUse, sdk.StageAfterToolcall, call(true)},
		{xbot.HookPostToolUseError, sdk.StageAfterToolcall, call(false)},
		{xbot.HookAgentStop, sdk.StageAfterOutput, func() *sdk.StageContext { return &sdk.StageContext{FinalText: "done"} }},
	}
	for _, tc := range cases {
		for _, how := range []string{"error", "panic", "hang"} {
			t.Run(fmt.Sprintf("%s/%s", tc.event, how), func(t *testing.T) {
				_, run, logs := startHooked(t, how, func(c xbot.PluginContext, h xbot.HookHandler) error { return c.OnEvent(tc.event, "", h) })
				if run(tc.stage, tc.sc()).Response != nil {
					t.Error("a failed after-hook answered")
				}
				if l := strings.Join(logs(), "\n"); !strings.Contains(l, "stage handler failed") || !strings.Contains(l, string(tc.event)) {
					t.Errorf("failure not logged:\n%s", l)
				}
			})
		}
	}
}

func TestPreToolUseFailsClosed(t *testing.T) {
	for _, how := range []string{"error", "panic", "hang"} {
		t.Run(how, func(t *testing.T) {
			h, _ := start(t, func(pc xbot.PluginContext) error {
				xbot.SetHookTimeout(pc.(*xbot.Context), time.Millisecond)
				return pc.OnPreToolUse("", misbehave(t, how))
			})
			if _, err := h.DecisionHooks()[0](context.Background(), &sdk.ToolContext{Tool: "ls"}, "fs__ls", nil); err == nil {
				t.Error("a failed PreToolUse hook did not refuse")
			}
		})
	}
}

func TestEnricherBounded(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h, _ := start(t, func(pc xbot.PluginContext) error {
		xbot.SetHookTimeout(pc.(*xbot.Context), time.Millisecond)
		if err := pc.EnrichContext("slow", func(context.Context) (string, error) { <-release; return "late", nil }); err != nil {
			return err
		}
		return pc.EnrichContext("quick", func(context.Context) (string, error) { return "on time", nil })
	})
	sc := h.RunStage(sdk.StagePreAction, &sdk.StageContext{ContextMsgs: []map[string]any{{"role": "system", "content": "sys"}}})
	if got := fmt.Sprint(sc.ContextMsgs[0]["content"]); !strings.Contains(got, "on time") || strings.Contains(got, "late") {
		t.Errorf("system message %q", got)
	}
}

func TestStorageLimits(t *testing.T) {
	_, c := start(t, func(xbot.PluginContext) error { return nil })
	st := c.Storage()
	if err := st.Set("", "v"); err == nil {
		t.Error("an empty key was stored")
	}
	if err := st.Set(strings.Repeat("k", xbot.MaxStorageKeyBytes+1), "v"); !errors.Is(err, xbot.ErrStorageLimit) {
		t.Errorf("long key: %v", err)
	}
	if err := st.Set("big", strings.Repeat("v", xbot.MaxStorageValueBytes+1)); !errors.Is(err, xbot.ErrStorageLimit) {
		t.Errorf("long value: %v", err)
	}
	if err := st.Set("max", strings.Repeat("v", xbot.MaxStorageValueBytes)); err != nil {
		t.Errorf("a value at the bound: %v", err)
	}
	for i := len(st.Keys()); i < xbot.MaxStorageKeys; i++ {
		if err := st.Set(fmt.Sprintf("k%04d", i), "v"); err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
	}
	err := st.Set("one-more", "v")
	if !errors.Is(err, xbot.ErrStorageLimit) || !strings.Contains(err.Error(), "delete some first") {
		t.Errorf("key past the bound: %v", err)
	}
	if _, ok := st.Get("one-more"); ok {
		t.Error("the refused key was stored")
	}
	if err := st.Set("max", "changed"); err != nil {
		t.Errorf("changing a key at the bound: %v", err)
	}
	if err := st.Delete("max"); err != nil {
		t.Fatal(err)
	}
	if err := st.Set("one-more", "v"); err != nil {
		t.Errorf("after a delete: %v", err)
	}
}
