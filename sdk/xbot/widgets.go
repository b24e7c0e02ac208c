package xbot

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// Widgets in Hearth's web UI: each UpdateWidget sends every rendered
// widget of the plugin to the host's widget board (host.WidgetHost:
// compiled in, the kernel; in a child process, a widgets.set
// notification). A widget's spans become a text widget (their texts
// joined), or a badge of that tone when it is one span styled success,
// warning, error or info; the zone is the slot and the id the title.
// Deactivate removes them. A host without a board keeps them here only
// (RenderedWidget).

// spanTones are the span styles that map to a badge's tone.
var spanTones = map[StyleClass]string{
	StyleSuccess: "success", StyleWarning: "warning", StyleError: "error", StyleInfo: "info",
}

// webWidget is one rendered widget in the board's shape.
func webWidget(id, zone string, spans []WidgetSpan) wire.Widget {
	w := wire.Widget{ID: id, Title: id, Slot: zone, Type: "text"}
	if len(spans) == 1 {
		if tone, ok := spanTones[spans[0].Style]; ok {
			w.Type = "badge"
			w.Props, _ = json.Marshal(map[string]string{"text": spans[0].Text, "tone": tone})
			return w
		}
	}
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.Text)
	}
	w.Props, _ = json.Marshal(map[string]string{"text": b.String()})
	return w
}

// publishWidgets sends the plugin's rendered widgets to the host's board.
func (c *Context) publishWidgets() error {
	wh := host.WidgetHostOf(c.s)
	if wh == nil {
		return nil
	}
	c.mu.Lock()
	ids := make([]string, 0, len(c.rendered))
	for id := range c.rendered {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	ws := make([]wire.Widget, 0, len(ids))
	for _, id := range ids {
		ws = append(ws, webWidget(id, c.zones[id], c.rendered[id]))
	}
	c.mu.Unlock()
	if err := wh.SetWidgets(c.s.PluginName(), ws); err != nil && !errors.Is(err, sdk.ErrUnavailable) {
		return fmt.Errorf("xbot: widgets: %w", err)
	}
	return nil
}

// clearWidgets removes the plugin's widgets from the host's board.
func (c *Context) clearWidgets() {
	c.mu.Lock()
	had := len(c.rendered) > 0
	c.rendered = nil
	c.mu.Unlock()
	if wh := host.WidgetHostOf(c.s); had && wh != nil {
		_ = wh.SetWidgets(c.s.PluginName(), nil)
	}
}
