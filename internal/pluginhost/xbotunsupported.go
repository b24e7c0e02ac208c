package pluginhost

import "encoding/json"

// refuseXbotUI logs, when an xbot plugin starts, each part of its
// plugin.json that Hearth does not host: the "web" block (views for xbot's
// web front end, reached with web_plugin_rpc) and, for a stdio plugin,
// contributes.ui (terminal widgets; a script plugin's are run, see
// xbotscript.go). Nothing is dropped without a line naming it.
func (p *Process) refuseXbotUI() {
	if len(p.m.Web) > 0 && string(p.m.Web) != "null" {
		p.log.Warn("xbot web block not supported by Hearth: its views are plugin JavaScript, which would run in the " +
			"owner's browser with the owner's API token (a sandboxed iframe would be needed); its views and web_plugin_rpc " +
			"are not served; ignored. Declarative web_ui widgets are shown")
	}
	if p.m.Script() || len(p.m.Contributes) == 0 {
		return
	}
	var c struct {
		UI []struct {
			ID string `json:"id"`
		} `json:"ui"`
	}
	if json.Unmarshal(p.m.Contributes, &c) != nil {
		return
	}
	for _, ui := range c.UI {
		p.log.Warn("xbot contributes.ui not supported for a stdio plugin by Hearth; ignored", "widget", ui.ID)
	}
}
