package kernel

import (
	"fmt"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/wire"
)

var _ host.WidgetHost = (*Kernel)(nil)

// SetWidgets implements host.WidgetHost for compiled-in plugins: the
// widgets go to Options.Widgets (the web UI's board).
func (k *Kernel) SetWidgets(plugin string, ws []wire.Widget) error {
	if k.cfg.Widgets == nil {
		return fmt.Errorf("plugin widgets: %w", sdk.ErrUnavailable)
	}
	return k.cfg.Widgets(plugin, ws)
}
