// Command ha-media runs the compat suite's mediabot (./mediabot) as a
// child process.
package main

import (
	"github.com/hearth-agent/hearth/internal/compat/testdata/ha-media/mediabot"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

func main() { pluginrpc.Serve(mediabot.New) }
