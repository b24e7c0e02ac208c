package pluginrpc

import (
	"fmt"

	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/wire"
)

var _ host.WidgetHost = (*child)(nil)

// SetWidgets implements host.WidgetHost: the widgets go to Hearth as a
// widgets.set notification.
func (c *child) SetWidgets(_ string, ws []wire.Widget) error {
	if ws == nil {
		ws = []wire.Widget{}
	}
	if err := c.conn.Notify(wire.MethodWidgetsSet, wire.WidgetsSetParams{Widgets: ws}); err != nil {
		return fmt.Errorf("sending widgets: %w", err)
	}
	return nil
}
