// Package shim is the plugin supervisor ("shim") that Hearth starts every
// process plugin under on Linux: the same binary, re-executed with Arg as
// its first argument (see pluginhost.ShimMain for what it guarantees).
//
// The supervisor runs from this package's init, not from main: a Go
// program initializes its packages in dependency order, and among those
// ready, in the order of their import paths. This package imports only
// os, os/signal, strconv, syscall and time, so it is ready, and
// runs, before almost every other package of Hearth is initialized (the
// SQLite driver, the MCP SDK, net/http, the JSON and schema libraries,
// Hearth's own tables). A shim therefore neither spends their init time
// nor touches the pages of their code and data; it exits from init and
// never reaches main. Keep its imports this small: a package it imports
// is initialized first, with everything that package imports.
package shim

import "os"

// Arg is the hidden first argument that makes a Hearth binary a plugin's
// supervisor instead of Hearth: "hearth Arg HEARTH_PID PATH ARGV0 ARGS...".
const Arg = "__hearth-plugin-shim"

func init() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(run(os.Args[2:]))
	}
}
