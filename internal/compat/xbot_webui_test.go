//go:build unix

package compat

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// xbot's web widgets (web_ui, web_ui_action), run through a whole Hearth
// with pluginhost's web-ui-demo-shaped test plugin xbot-widgets. The HTTP
// routes and the browser are tested in internal/server (widgets_test.go,
// widgets_browser_test.go).
func TestXbotWebUI(t *testing.T) {
	const plugin = "com-example-widgets"
	env := func(t *testing.T) *rtEnv {
		e := newRuntimeEnv(t, "xbot-widgets")
		waitFor(t, "the widgets", func() bool { return len(e.a.Plugins.WebWidgets()) == 5 })
		return e
	}
	byID := func(e *rtEnv) map[string]pluginhost.WebWidget {
		out := map[string]pluginhost.WebWidget{}
		for _, w := range e.a.Plugins.WebWidgets() {
			out[w.ID] = w
		}
		return out
	}
	rows := []rtRow{
		{"web_ui component sparkline {data, color}", "xbot-widgets", "kept with its points and colour", func(t *testing.T) {
			w := byID(env(t))["trend"]
			if w.Type != "sparkline" || len(w.Props.Data) != 5 || w.Props.Color != "#22c55e" || w.Slot != "right_sidebar" {
				t.Errorf("%+v", w)
			}
		}},
		{"web_ui component table {columns, rows, cells {text, tone}}", "xbot-widgets", "cells in column order, tones kept, the action column a button", func(t *testing.T) {
			w := byID(env(t))["jobs"]
			if w.Type != "table" || len(w.Props.Rows) != 2 || w.Props.Rows[1][1].Tone != "failed" || w.Props.Rows[1][2].Action != "retry" {
				t.Errorf("%+v", w)
			}
		}},
		{"web_ui component badge {text, tone, pulse}", "xbot-widgets", "kept", func(t *testing.T) {
			w := byID(env(t))["status"]
			if w.Type != "badge" || w.Props.Text != "up" || w.Props.Tone != "success" || !w.Props.Pulse {
				t.Errorf("%+v", w)
			}
		}},
		{"web_ui component progress {value, max, label, tone}; metric {label, value, delta}", "xbot-widgets", "kept, the value within 0..max", func(t *testing.T) {
			ws := byID(env(t))
			if p, m := ws["disk"], ws["load"]; p.Props.Value != 42 || p.Props.Max != 100 || m.Props.Text != "0.5" || m.Props.Delta != "-0.1" {
				t.Errorf("%+v %+v", p, m)
			}
		}},
		{"web_ui free-form code (code, html component); unknown type", "xbot-widgets", "refused with a log line saying why; the others kept", func(t *testing.T) {
			e := env(t)
			if _, ok := byID(e)["evil"]; ok {
				t.Error("html widget kept")
			}
			if _, ok := byID(e)["tsx"]; ok {
				t.Error("code widget kept")
			}
			if !strings.Contains(e.log.String(), "owner's API token") || !strings.Contains(e.log.String(), "gauge") {
				t.Error("no log line")
			}
		}},
		{"web_ui_action {widgetId, action, data, chatId}; web_ui hot-update", "xbot-widgets", "the plugin answers; its new declaration replaces the set", func(t *testing.T) {
			e := env(t)
			res, err := e.a.Plugins.WidgetBoard().Act(context.Background(), plugin, "jobs",
				pluginhost.WidgetAction{Action: "retry", Data: `{"id":"j2"}`, ChatID: "c1"})
			if err != nil || res != "retrying j2 in c1" {
				t.Fatalf("%q %v", res, err)
			}
			if c := byID(e)["jobs"].Props.Rows[1][1]; c.Text != "running" {
				t.Errorf("after the action %+v", c)
			}
		}},
		{"web_ui_action on a widget the plugin did not declare", "xbot-widgets", "refused without reaching the plugin", func(t *testing.T) {
			e := env(t)
			if _, err := e.a.Plugins.WidgetBoard().Act(context.Background(), plugin, "evil", pluginhost.WidgetAction{Action: "x"}); !errors.Is(err, pluginhost.ErrNoWidget) {
				t.Errorf("%v", err)
			}
		}},
		{"runtime script, contributes.ui output in the web UI", "xbot-script", "the script's widget output is a text widget without actions, announced on the board", func(t *testing.T) {
			e := newRuntimeEnv(t, "xbot-script", llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w", Name: "files__write_file", Arguments: `{"path":"a.txt"}`}}}, llmtest.Reply{Text: "ok"})
			changed := make(chan string, 16)
			defer e.a.Plugins.WidgetBoard().Subscribe(func(p string) { changed <- p })()
			if err := e.a.Kernel.RegisterTool("files", sdk.ToolDef{Name: "write_file", Effect: sdk.EffectRead},
				func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
					return "wrote", nil
				}); err != nil {
				t.Fatal(err)
			}
			if out := e.ask(t, "write"); out.Err != nil {
				t.Fatal(out.Err)
			}
			for p := <-changed; p != "file-note"; p = <-changed {
			}
			waitFor(t, "the text widget", func() bool {
				for _, w := range e.a.Plugins.WebWidgets() {
					if w.Plugin == "file-note" && w.ID == "write-note" && w.Type == "text" && !w.Actions &&
						strings.Contains(w.Props.Text, "write_file wrote a.txt") {
						return true
					}
				}
				return false
			})
		}},
	}
	for _, r := range rows {
		t.Run(r.symbol, func(t *testing.T) {
			t.Logf("plugin %s: %s", r.plugin, r.checks)
			r.run(t)
		})
	}
}
