package compat

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/server"
)

// TestXbotGoAPIChildWidgets runs the board test plugin as a child process
// (pluginrpc.Serve(xbot.Adapt(board.Board{}))): its widgets reach the web
// UI's board over widgets.set as compiled in, and leave it when the
// plugin stops.
func TestXbotGoAPIChildWidgets(t *testing.T) {
	dir := t.TempDir()
	bin := buildXbotChild(t)
	writeXbotChildren(t, dir, map[string]string{
		"board": `{"id":"board","command":["` + bin + `","board"]}`,
	})
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Plugins: app.PluginsWait,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// Activate's widgets.set is sent before the handshake's answer and
	// is read first; its handler may still be running.
	changed := make(chan struct{}, 1)
	stop := a.Plugins.WidgetBoard().Subscribe(func(string) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	for !hasPluginWidgets(a.Plugins.WebWidgets(), "board") {
		<-changed
	}
	checkBoardWidgets(t, a.Plugins.WebWidgets(), "board")
	checkBoardWidgets(t, httpWidgets(t, a), "board")
	a.Plugins.Close()
	if hasPluginWidgets(a.Plugins.WebWidgets(), "board") {
		t.Errorf("widgets left after the plugin stopped: %+v", a.Plugins.WebWidgets())
	}
}

// hasPluginWidgets reports whether ws has a widget of plugin.
func hasPluginWidgets(ws []pluginhost.WebWidget, plugin string) bool {
	for _, w := range ws {
		if w.Plugin == plugin {
			return true
		}
	}
	return false
}

// httpWidgets returns GET /v1/plugins/widgets's widgets from a server of a.
func httpWidgets(t *testing.T, a *app.App) []pluginhost.WebWidget {
	t.Helper()
	s := server.New(a, &server.Options{Token: "owner-token-0123456789"})
	hs := httptest.NewServer(s.Handler())
	defer func() { s.Close(); hs.Close() }()
	req, err := http.NewRequestWithContext(t.Context(), "GET", hs.URL+"/v1/plugins/widgets", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer owner-token-0123456789")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list server.WidgetList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/plugins/widgets: %d, %v", resp.StatusCode, err)
	}
	return list.Widgets
}

// checkBoardWidgets checks the board test plugin's two widgets, named
// plugin, among ws.
func checkBoardWidgets(t *testing.T, ws []pluginhost.WebWidget, plugin string) {
	t.Helper()
	got := map[string]pluginhost.WebWidget{}
	for _, w := range ws {
		if w.Plugin == plugin {
			got[w.ID] = w
		}
	}
	if w := got["status"]; w.Type != pluginhost.WidgetText || w.Props.Text != "queue: 3 jobs" || w.Slot != "statusBarRight" || w.Actions {
		t.Errorf("status widget %+v", w)
	}
	if w := got["health"]; w.Type != pluginhost.WidgetBadge || w.Props.Text != "healthy" || w.Props.Tone != "success" {
		t.Errorf("health widget %+v", w)
	}
	if len(got) != 2 {
		t.Errorf("widgets of %s: %+v", plugin, ws)
	}
}
