package pluginhost

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseWebUI: any web_ui message parses without panicking into
// widgets within the bounds, of the types Hearth renders.
func FuzzParseWebUI(f *testing.F) {
	for _, s := range []string{
		`[]`,
		`[{"widget_id":"a","component":{"type":"sparkline","props":{"data":[1,2],"color":"#fff"}}}]`,
		`[{"widget_id":"t","component":{"type":"table","props":{"columns":["a","action"],"rows":[{"a":{"text":"x","tone":"failed"},"action":"retry"}]}}}]`,
		`[{"widget_id":"b","component":{"type":"badge","props":{"text":1,"tone":"x","pulse":true}}}]`,
		`[{"widget_id":"h","component":{"type":"html","props":{"html":"<b>"}}}]`,
		`[{"widget_id":"","component":null}, 5, "x"]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var ui []json.RawMessage
		if json.Unmarshal([]byte(s), &ui) != nil {
			return
		}
		ws, _ := parseWebUI("p", ui)
		if len(ws) > maxWidgetsPerPlugin {
			t.Fatalf("%d widgets", len(ws))
		}
		for _, w := range ws {
			switch w.Type {
			case WidgetSparkline, WidgetTable, WidgetBadge, WidgetText:
			default:
				t.Fatalf("type %q", w.Type)
			}
			if len(w.Props.Rows) > maxWidgetRows || len(w.Props.Columns) > maxWidgetColumns || len(w.Props.Data) > maxSparkPoints {
				t.Fatalf("over the bounds: %+v", w)
			}
			for _, r := range w.Props.Rows {
				if len(r) != len(w.Props.Columns) {
					t.Fatalf("row of %d cells for %d columns", len(r), len(w.Props.Columns))
				}
			}
			_ = w.Mask(strings.ToUpper)
		}
	})
}
