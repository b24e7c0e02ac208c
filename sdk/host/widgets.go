package host

import (
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// WidgetHost is implemented by hosts that show plugins' web widgets:
// Hearth's kernel (compiled-in plugins) and the child-process bridge
// (sent as widgets.set). Adapters such as sdk/xbot find it with
// WidgetHostOf.
type WidgetHost interface {
	// SetWidgets replaces plugin's web widgets; an empty list removes
	// them. The host bounds and normalises them; a widget it refuses is
	// reported in the error and the others are kept.
	SetWidgets(plugin string, widgets []wire.Widget) error
}

// WidgetHostOf returns the WidgetHost behind s, or nil when s's host
// shows no widgets.
func WidgetHostOf(s *sdk.PluginSDK) WidgetHost {
	var h Host
	switch b := link.Backend(s).(type) {
	case *binding:
		h = b.Host
	case eventBinding:
		h = b.Host
	}
	w, _ := h.(WidgetHost)
	return w
}
