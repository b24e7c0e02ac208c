//go:build unix

package server

import (
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A web-ui-demo-shaped plugin's widgets in the browser: the table is
// seen, and its retry cell clicked (web/test/widgets.mjs).
func TestBrowserPluginWidgets(t *testing.T) {
	node := browserReady(t)
	e := startUI(t, nil, llmtest.Reply{Text: "hi"})
	installWidgetsPlugin(t, e.app)
	browse(t, node, e, "widgets")
}
