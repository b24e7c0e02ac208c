// Command greeter runs an xbot test plugin as a Hearth child process: the
// greeter, with the argument "gate" the gatekeeper, with "broken" the
// broken gate, with "board" the widget board.
package main

import (
	"os"

	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/board"
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/brokengate"
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/gatekeeper"
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/greeter"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
	"github.com/hearth-agent/hearth/sdk/xbot"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "gate":
			pluginrpc.Serve(xbot.Adapt(gatekeeper.Gate{}))
			return
		case "board":
			pluginrpc.Serve(xbot.Adapt(board.Board{}))
			return
		case "broken":
			pluginrpc.Serve(xbot.Adapt(brokengate.Gate{}))
			return
		}
	}
	pluginrpc.Serve(xbot.Adapt(greeter.New()))
}
