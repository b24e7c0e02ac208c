//go:build unix

package pluginhost

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// An xbot channel plugin of our own shaped like xbot's web-ui-demo: its
// web_ui declaration reaches the board (free-form html and unknown types
// refused with a log line), a click goes back as web_ui_action, and the
// plugin's new declaration replaces its set.
func TestXbotWebUIWidgets(t *testing.T) {
	needProgram(t, "python3")
	f := newFixture(t)
	f.opts.Widgets = NewWidgetBoard()
	changes := make(chan string, 16)
	defer f.opts.Widgets.Subscribe(func(p string) { changes <- p })()
	dir, _ := filepath.Abs("testdata/xbot-widgets")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	const plugin = "com-example-widgets"
	if got := <-changes; got != plugin {
		t.Fatalf("change for %q", got)
	}
	ws := f.opts.Widgets.All()
	if len(ws) != 5 {
		t.Fatalf("widgets %+v", ws)
	}
	spark, table, badge, progress, metric := ws[0], ws[1], ws[2], ws[3], ws[4]
	if spark.Type != WidgetSparkline || len(spark.Props.Data) != 5 || spark.Props.Color != "#22c55e" || spark.Refresh != "10s" {
		t.Errorf("sparkline %+v", spark)
	}
	if table.Type != WidgetTable || table.Title != "Jobs <b>" || len(table.Props.Rows) != 2 ||
		table.Props.Rows[1][1] != (WidgetCell{Text: "failed", Tone: "failed"}) ||
		table.Props.Rows[1][2].Action != "retry" || table.Props.Rows[0][2].Action != "" {
		t.Errorf("table %+v", table)
	}
	if badge.Type != WidgetBadge || badge.Slot != "title_bar_right" || badge.Props.Tone != "success" || !badge.Props.Pulse || badge.Props.Action != "toggle" {
		t.Errorf("badge %+v", badge)
	}
	if progress.Type != WidgetProgress || progress.Props.Value != 42 || progress.Props.Max != 100 || progress.Props.Tone != "warning" {
		t.Errorf("progress %+v", progress)
	}
	if metric.Type != WidgetMetric || metric.Props.Text != "0.5" || metric.Props.Delta != "-0.1" || metric.Props.Label != "Load" {
		t.Errorf("metric %+v", metric)
	}
	logs := f.logs.String()
	if strings.Count(logs, "free-form code components are refused") != 2 || !strings.Contains(logs, `gauge`) {
		t.Errorf("refusals not logged: %s", logs)
	}

	ctx := context.Background()
	got, err := f.opts.Widgets.Act(ctx, plugin, "jobs", WidgetAction{Action: "retry", Data: `{"id":"j2"}`, ChatID: "web"})
	if err != nil || got != "retrying j2 in web" {
		t.Fatalf("action: %q %v", got, err)
	}
	<-changes // the plugin declared its set again before answering
	if c := f.opts.Widgets.All()[1].Props.Rows[1][1]; c.Text != "running" {
		t.Errorf("after retry %+v", c)
	}
	if got, err := f.opts.Widgets.Act(ctx, plugin, "status", WidgetAction{Action: "toggle"}); err != nil || got != "toggled" {
		t.Errorf("badge action: %q %v", got, err)
	}
	if _, err := f.opts.Widgets.Act(ctx, plugin, "evil", WidgetAction{Action: "x"}); !errors.Is(err, ErrNoWidget) {
		t.Errorf("refused widget: %v", err)
	}
	if _, err := f.opts.Widgets.Act(ctx, plugin, "jobs", WidgetAction{Action: "nope"}); err == nil || !strings.Contains(err.Error(), "unknown action") {
		t.Errorf("plugin error: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.opts.Widgets.Act(cctx, plugin, "jobs", WidgetAction{Action: "slow"}); !errors.Is(err, context.Canceled) {
		t.Errorf("unanswered action: %v", err)
	}

	p.Stop()
	if len(f.opts.Widgets.All()) != 0 {
		t.Errorf("widgets kept after the plugin stopped")
	}
}
