// Command greeter runs the greeter xbot test plugin as a Hearth child
// process.
package main

import (
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/greeter"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
	"github.com/hearth-agent/hearth/sdk/xbot"
)

func main() { pluginrpc.Serve(xbot.Adapt(greeter.New())) }
