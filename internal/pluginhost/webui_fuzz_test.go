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
		`[{"widget_id":"c","code":"export default () => null"},{"widget_id":"s","src":"https://x"}]`,
		`[{"widget_id":"p","component":{"type":"progress","props":{"value":150,"max":0,"label":"l"}}},{"widget_id":"m","component":{"type":"metric","props":{"value":3,"delta":"-1"}}}]`,
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
			case WidgetSparkline, WidgetTable, WidgetBadge, WidgetText, WidgetProgress, WidgetMetric:
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
			if w.Type == WidgetProgress && (w.Props.Value < 0 || w.Props.Value > w.Props.Max || w.Props.Max <= 0) {
				t.Fatalf("progress out of its range: %+v", w.Props)
			}
			_ = w.Mask(strings.ToUpper)
		}
	})
}
