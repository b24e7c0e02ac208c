package pluginhost

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/wire"
)

// TestSetWidgetsBounds: a Go plugin's widgets are bounded and normalised
// as web_ui widgets are; code is refused, the rest kept, without actions.
func TestSetWidgetsBounds(t *testing.T) {
	b := NewWidgetBoard()
	err := b.SetWidgets("p", []wire.Widget{
		{ID: "ok", Slot: "statusBarRight", Type: "text", Props: json.RawMessage(`{"text":"hi"}`)},
		{ID: "code", Type: "html", Props: json.RawMessage(`{"html":"<script>"}`)},
		{ID: "bad id!", Type: "text"},
		{ID: "big", Type: "text", Props: json.RawMessage(`{"text":"` + strings.Repeat("x", maxWidgetText+10) + `"}`)},
	})
	if err == nil || !strings.Contains(err.Error(), "free-form code") || !strings.Contains(err.Error(), "widget_id") {
		t.Errorf("err %v", err)
	}
	ws := b.All()
	if len(ws) != 2 || ws[0].ID != "ok" || ws[0].Props.Text != "hi" || ws[0].Actions || len(ws[1].Props.Text) > maxWidgetText {
		t.Fatalf("widgets %+v", ws)
	}
	many := make([]wire.Widget, maxWidgetsPerPlugin+3)
	for i := range many {
		many[i] = wire.Widget{ID: fmt.Sprint("w", i), Type: "text"}
	}
	if err := b.SetWidgets("p", many); err == nil {
		t.Error("no error for too many widgets")
	}
	if n := len(b.All()); n != maxWidgetsPerPlugin {
		t.Errorf("%d widgets kept", n)
	}
	if err := b.SetWidgets("p", nil); err != nil || len(b.All()) != 0 {
		t.Errorf("clearing: %v, %+v", err, b.All())
	}
}

// FuzzWidgetsSet: any widgets.set params decode and parse without
// panicking into at most maxWidgetsPerPlugin widgets without actions.
func FuzzWidgetsSet(f *testing.F) {
	for _, s := range []string{
		`{"widgets":[]}`,
		`{"widgets":[{"widget_id":"a","type":"text","props":{"text":"x"}}]}`,
		`{"widgets":[{"widget_id":"b","type":"badge","props":{"text":"ok","tone":"success"}},{"widget_id":"h","type":"iframe"}]}`,
		`{"widgets":[{"widget_id":"t","type":"table","props":{"columns":["a"],"rows":[{"a":1}]}}]}`,
		`{"widgets":null}`, `[]`, `{"widgets":[5]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var p wire.WidgetsSetParams
		if wire.DecodeParams(json.RawMessage(s), &p) != nil {
			return
		}
		ws, _ := parseGoWidgets("p", p.Widgets)
		if len(ws) > maxWidgetsPerPlugin {
			t.Fatalf("%d widgets", len(ws))
		}
		for _, w := range ws {
			if w.Actions || w.Plugin != "p" {
				t.Fatalf("widget %+v", w)
			}
		}
	})
}
