// Command child runs the hamemo test plugin as a child process.
package main

import (
	"github.com/hearth-agent/hearth/internal/compat/testdata/ha-compat/hamemo"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

func main() { pluginrpc.Serve(hamemo.New) }
