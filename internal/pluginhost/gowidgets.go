package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hearth-agent/hearth/sdk/wire"
)

// Web widgets of Go plugins: a compiled-in plugin's host (the kernel)
// hands them to SetWidgets, a Go child sends widgets.set. They are bounded
// and normalised as xbot channel plugins' web_ui widgets are, and have no
// actions (no web_ui_action route).

// SetWidgets replaces plugin's widgets with ws, bounded as web_ui
// widgets are; the refused ones are reported, joined, and the others
// kept. An empty ws removes the plugin's widgets.
func (b *WidgetBoard) SetWidgets(plugin string, ws []wire.Widget) error {
	out, errs := parseGoWidgets(plugin, ws)
	b.set(plugin, out, nil)
	return errors.Join(errs...)
}

// parseGoWidgets turns a Go plugin's widgets into board widgets.
func parseGoWidgets(plugin string, ws []wire.Widget) ([]WebWidget, []error) {
	var out []WebWidget
	var errs []error
	for i, w := range ws {
		if len(out) == maxWidgetsPerPlugin {
			errs = append(errs, fmt.Errorf("widgets past the first %d are dropped", maxWidgetsPerPlugin))
			break
		}
		var e xbotWebUIEntry
		e.WidgetID, e.Title, e.Slot = w.ID, w.Title, w.Slot
		e.Component.Type, e.Component.Props = w.Type, w.Props
		ww, err := parseWidget(plugin, e)
		if err != nil {
			errs = append(errs, fmt.Errorf("widget %d (%q): %w", i, truncateText(w.ID, 64), err))
			continue
		}
		ww.Actions = false
		out = append(out, ww)
	}
	return out, errs
}

// widgetsSet handles a Go child's widgets.set notification.
func (p *Process) widgetsSet(_ context.Context, raw json.RawMessage) (any, error) {
	var ws wire.WidgetsSetParams
	if err := wire.DecodeParams(raw, &ws); err != nil {
		return nil, err
	}
	if err := p.opts.Widgets.SetWidgets(p.name, ws.Widgets); err != nil {
		p.opts.Log.Warn("plugin widgets refused", "plugin", p.name, "err", err)
	}
	return nil, nil
}
