// Command hearth-soload runs one HomeAgent .so plugin as a Hearth child
// plugin: it opens the .so (Go's plugin package) and serves it over
// Hearth's plugin protocol on stdin and stdout (sdk/pluginrpc).
//
//	hearth-soload PATH.so
//
// Hearth starts it for every .so in its plugins folder; nobody runs it by
// hand. A .so must be built with the same Go and the same Hearth checkout
// as this program, so Hearth builds it from that checkout on first need
// (see docs/plugins.md), or uses a hearth-soload installed next to hearth.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/hearth-agent/hearth/internal/soload"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hearth-soload PATH.so (Hearth runs it; see docs/plugins.md)")
		os.Exit(2)
	}
	factory, err := soload.Open(os.Args[1])
	if err != nil {
		// Hearth shows the last line of stderr as why: the stack of a
		// panic goes first.
		var panicked *soload.InitPanicError
		if errors.As(err, &panicked) {
			os.Stderr.Write(panicked.Stack)
		}
		fmt.Fprintln(os.Stderr, "hearth-soload:", err)
		os.Exit(3)
	}
	pluginrpc.Serve(factory)
}
