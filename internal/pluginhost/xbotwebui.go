package pluginhost

import (
	"context"
	"encoding/json"
)

// webUI takes a web_ui declaration: the widgets Hearth renders replace
// the plugin's set on the board, each refused entry is logged with why.
func (c *xbotChan) webUI(ui []json.RawMessage) {
	ws, errs := parseWebUI(c.p.name, ui)
	for _, err := range errs {
		c.p.log.Warn("xbot web_ui widget refused", "channel", c.decl.Name, "err", err)
	}
	c.p.opts.Widgets.set(c.p.name, ws, func(ctx context.Context, params map[string]any) (json.RawMessage, error) {
		return c.call(ctx, "web_ui_action", params)
	})
}
