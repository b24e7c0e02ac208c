package xbot_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/wire"
	"github.com/hearth-agent/hearth/sdk/xbot"
)

// boardHost is a host with a widget board and nothing else.
type boardHost struct{ sets map[string][]wire.Widget }

func (h *boardHost) RegisterTool(string, sdk.ToolDef, sdk.RawToolHandler) error { return nil }
func (h *boardHost) RegisterStage(string, sdk.Stage, bool, sdk.StageHandler)    {}
func (h *boardHost) RegisterDecisionHook(string, sdk.DecisionHook)              {}
func (h *boardHost) Services(string) host.Services                              { return host.Services{} }
func (h *boardHost) Inject(string, sdk.Injection) error                         { return nil }
func (h *boardHost) InjectSync(context.Context, string, sdk.Injection) (string, error) {
	return "", nil
}
func (h *boardHost) SetWidgets(plugin string, ws []wire.Widget) error {
	h.sets[plugin] = ws
	return nil
}

type fixedWidget []xbot.WidgetSpan

func (w fixedWidget) Render(int) []xbot.WidgetSpan { return w }

// TestUpdateWidgetReachesTheBoard: UpdateWidget sends the rendered
// widgets to the host's WidgetHost, spans as text or one toned span as a
// badge, zone as slot.
func TestUpdateWidgetReachesTheBoard(t *testing.T) {
	h := &boardHost{sets: map[string][]wire.Widget{}}
	c := xbot.NewContext(host.New("p", h))
	if err := c.ContributeUI("a", "statusBarRight", fixedWidget{{Text: "git:"}, {Text: "main", Style: xbot.StyleAccent}}, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.ContributeUI("b", "", fixedWidget{{Text: "failing", Style: xbot.StyleError}}, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateWidget("a"); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateWidget("b"); err != nil {
		t.Fatal(err)
	}
	ws := h.sets["p"]
	if len(ws) != 2 || ws[0].ID != "a" || ws[0].Type != "text" || ws[0].Slot != "statusBarRight" || ws[1].Type != "badge" {
		t.Fatalf("widgets %+v", ws)
	}
	var a, b map[string]string
	if json.Unmarshal(ws[0].Props, &a) != nil || a["text"] != "git:main" || json.Unmarshal(ws[1].Props, &b) != nil || b["tone"] != "error" {
		t.Errorf("props %s %s", ws[0].Props, ws[1].Props)
	}
}
