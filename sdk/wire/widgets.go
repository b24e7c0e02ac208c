package wire

import "encoding/json"

// MethodWidgetsSet is a plugin's notification replacing its web widgets
// (WidgetsSetParams); core. Hearth bounds and normalises them as it does
// xbot channel plugins' web_ui widgets and shows them in the web UI; an
// empty list removes them.
const MethodWidgetsSet = "widgets.set"

// Widget is one web widget a plugin declares: the shape of the web UI
// board's widgets (GET /v1/plugins/widgets) before Hearth bounds them.
type Widget struct {
	// ID is 1-64 letters, digits, '.', '_' or '-'.
	ID    string `json:"widget_id"`
	Title string `json:"title,omitempty"`
	// Slot is where the plugin would like it; the web UI shows every
	// slot in its widgets panel.
	Slot string `json:"slot,omitempty"`
	// Type is text, badge, sparkline, table, progress or metric.
	Type string `json:"type"`
	// Props are the type's props ({"text": "..."} for text).
	Props json.RawMessage `json:"props,omitempty"`
}

// WidgetsSetParams are a widgets.set notification's params.
type WidgetsSetParams struct {
	Widgets []Widget `json:"widgets"`
}
