package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
)

// Plugin widgets for the web UI: the declarative widgets xbot channel
// plugins send with web_ui and script plugins' widget outputs
// (internal/pluginhost/webui.go). Their text is masked as a plugin's
// stderr is; a click on an action goes back to the owning plugin.

// EvPluginWidgets is the global stream's event when a plugin's widget
// set changes; Plugin names it. Read GET /v1/plugins/widgets again.
const EvPluginWidgets = "plugin.widgets"

// WidgetList is GET /v1/plugins/widgets's answer.
type WidgetList struct {
	Widgets []pluginhost.WebWidget `json:"widgets"`
}

// WidgetActionRequest is a click on a widget's action: Action is the
// action cell's action, Data a JSON string (a table row as {column:
// text}), ChatID the chat the UI shows (optional).
type WidgetActionRequest struct {
	Action string `json:"action"`
	Data   string `json:"data,omitempty"`
	ChatID string `json:"chat_id,omitempty"`
}

// WidgetActionResult is the plugin's answer to a click, masked.
type WidgetActionResult struct {
	Result string `json:"result"`
}

func (s *Server) widgetRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/plugins/widgets", summary: "Every plugin's web widgets (sparkline, table, badge, text), text masked.",
			out: WidgetList{}, h: s.listWidgets},
		{method: "POST", path: "/v1/plugins/{id}/widgets/{widget}/action", summary: "Send a click on a widget's action to its plugin (web_ui_action); audited.",
			in: WidgetActionRequest{}, out: WidgetActionResult{}, h: s.widgetAction},
	}
}

func (s *Server) listWidgets(w http.ResponseWriter, r *http.Request) {
	out := WidgetList{Widgets: []pluginhost.WebWidget{}}
	if s.app.Plugins != nil {
		mask := s.stderrMask()
		for _, wd := range s.app.Plugins.WebWidgets() {
			out.Widgets = append(out.Widgets, wd.Mask(mask))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) widgetAction(w http.ResponseWriter, r *http.Request) {
	var in WidgetActionRequest
	if !decodeJSON(w, r, &in) {
		return
	}
	if s.app.Plugins == nil {
		writeError(w, http.StatusNotFound, "no_widget", "plugins are not loaded")
		return
	}
	plugin, widget := r.PathValue("id"), r.PathValue("widget")
	start := time.Now()
	res, err := s.app.Plugins.WidgetBoard().Act(r.Context(), plugin, widget,
		pluginhost.WidgetAction{Action: in.Action, Data: in.Data, ChatID: in.ChatID})
	s.auditWidgetAction(r.Context(), plugin, widget, in, time.Since(start), err)
	mask := s.stderrMask()
	switch {
	case errors.Is(err, pluginhost.ErrNoWidget):
		writeError(w, http.StatusNotFound, "no_widget", err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusGatewayTimeout, "plugin_timeout", "the plugin did not answer in time")
	case err != nil:
		writeError(w, http.StatusBadGateway, "plugin_error", mask(err.Error()))
	default:
		writeJSON(w, http.StatusOK, WidgetActionResult{Result: mask(res)})
	}
}

// auditWidgetAction records the owner's click in the audit log as a call
// of widget:<plugin>.<widget>.
func (s *Server) auditWidgetAction(ctx context.Context, plugin, widget string, in WidgetActionRequest, took time.Duration, err error) {
	if s.app.Store == nil {
		return
	}
	tool := "widget:" + plugin + "." + widget
	raw, _ := json.Marshal(in)
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	if aerr := s.app.Store.AppendAudit(context.WithoutCancel(ctx), store.AuditEntry{
		At: time.Now(), Channel: "web", User: apiActor, Role: "owner", Actor: apiActor, Tool: tool,
		ArgsHash: policy.ArgsHash(tool, raw), Decision: "allow", Rule: "the owner's click", DecidedBy: "api",
		Duration: took, Outcome: outcome,
	}); aerr != nil {
		s.log.Warn("audit log", "err", aerr)
	}
}

// widgetEvents publishes EvPluginWidgets on the global stream each time
// a plugin's widgets change; it returns the function that stops it.
func (s *Server) widgetEvents(c *core) func() {
	if s.app.Plugins == nil {
		return func() {}
	}
	return s.app.Plugins.WidgetBoard().Subscribe(func(plugin string) {
		c.bus.publish(EvPluginWidgets, Event{Plugin: plugin})
	})
}
