// Command greeter runs an xbot test plugin as a Hearth child process: the
// greeter, or with the argument "gate" the gatekeeper.
package main

import (
	"os"

	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/gatekeeper"
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/greeter"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
	"github.com/hearth-agent/hearth/sdk/xbot"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "gate" {
		pluginrpc.Serve(xbot.Adapt(gatekeeper.Gate{}))
		return
	}
	pluginrpc.Serve(xbot.Adapt(greeter.New()))
}
