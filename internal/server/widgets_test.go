//go:build unix

package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/store"
)

// installWidgetsPlugin copies pluginhost's web-ui-demo-shaped test plugin
// into a's plugins folder and starts it.
func installWidgetsPlugin(t *testing.T, a *app.App) {
	t.Helper()
	src := filepath.Join("..", "pluginhost", "testdata", "xbot-widgets")
	dst := filepath.Join(a.Plugins.Dir(), "widgets")
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"plugin.json", "main.py"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Plugins.Scan(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// A plugin's widgets are listed, their change is an event on the global
// stream, and a click goes to the plugin, is answered and audited.
func TestPluginWidgetRoutes(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	stream := openSSE(t, hs, "/v1/events")
	installWidgetsPlugin(t, a)
	if evs := stream.until(t, EvPluginWidgets); evs[len(evs)-1].data.Plugin != "com-example-widgets" {
		t.Fatalf("event %+v", evs[len(evs)-1])
	}
	code, body := adminCall(t, hs, "GET", "/v1/plugins/widgets", "")
	list := decodeAs[WidgetList](t, body)
	if code != 200 || len(list.Widgets) != 5 || list.Widgets[1].ID != "jobs" || list.Widgets[1].Props.Rows[1][2].Action != "retry" {
		t.Fatalf("GET widgets = %d %s", code, body)
	}

	code, body = adminCall(t, hs, "POST", "/v1/plugins/com-example-widgets/widgets/jobs/action",
		`{"action":"retry","data":"{\"id\":\"j2\"}","chat_id":"web"}`)
	if code != 200 || decodeAs[WidgetActionResult](t, body).Result != "retrying j2 in web" {
		t.Fatalf("action = %d %s", code, body)
	}
	stream.until(t, EvPluginWidgets) // the plugin declared its set again
	_, body = adminCall(t, hs, "GET", "/v1/plugins/widgets", "")
	if c := decodeAs[WidgetList](t, body).Widgets[1].Props.Rows[1][1]; c.Text != "running" {
		t.Fatalf("after the action: %s", body)
	}
	for path, want := range map[string]int{
		"/v1/plugins/com-example-widgets/widgets/evil/action": 404, // refused html widget
		"/v1/plugins/nope/widgets/jobs/action":                404,
	} {
		if code, body := adminCall(t, hs, "POST", path, `{"action":"retry"}`); code != want {
			t.Errorf("POST %s = %d %s", path, code, body)
		}
	}
	if code, body := adminCall(t, hs, "POST", "/v1/plugins/com-example-widgets/widgets/jobs/action", `{"action":"nope"}`); code != 502 ||
		!strings.Contains(body, "unknown action") {
		t.Errorf("plugin error = %d %s", code, body)
	}
	if code, _ := adminCall(t, hs, "POST", "/v1/plugins/com-example-widgets/widgets/jobs/action", `{"action":""}`); code == 200 {
		t.Errorf("empty action accepted")
	}
	entries, err := a.Store.Audit(t.Context(), store.AuditQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var clicks []string
	for _, e := range entries {
		if strings.HasPrefix(e.Tool, "widget:") {
			clicks = append(clicks, e.Tool+" "+e.Outcome)
		}
	}
	if len(clicks) < 4 || !strings.Contains(strings.Join(clicks, ","), "widget:com-example-widgets.jobs ok") {
		t.Errorf("audit %q", clicks)
	}
	// Without the token, neither route answers.
	for _, r := range [][2]string{{"GET", "/v1/plugins/widgets"}, {"POST", "/v1/plugins/com-example-widgets/widgets/jobs/action"}} {
		req, _ := http.NewRequest(r[0], hs.URL+r[1], strings.NewReader(`{"action":"retry"}`))
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s without the token = %d", r[0], r[1], resp.StatusCode)
		}
	}
}
