package pluginhost

import (
	"os"
	"sync/atomic"
)

// shimArg is the hidden first argument that makes a Hearth binary a
// plugin's supervisor instead of Hearth.
const shimArg = "__hearth-plugin-shim"

// shimEnabled is set by ShimMain: the program can run the supervisor, so
// plugins start under it.
var shimEnabled atomic.Bool

// ShimMain runs the plugin supervisor ("shim") and exits, when this
// process was started as one; otherwise it returns at once, and process
// plugins started from then on run under the supervisor. Call it first
// thing in main, before anything else, and in TestMain of every test
// binary that starts process plugins (the shim is this same binary,
// re-executed).
//
// On Linux the shim is the plugin's parent: a child subreaper, so every
// process the plugin starts (setsid, double fork and all) stays below it;
// when the plugin exits, when Hearth asks, or when Hearth dies (even by
// kill -9), it kills them all and exits with the plugin's status. The
// shim runs in a new session, so nothing below it can join Hearth's
// process group. A program that never calls ShimMain, and every other
// Unix system, starts plugins directly in a new session: descendants that
// leave the plugin's process group, or that outlive Hearth, are not
// contained there.
func ShimMain() {
	if len(os.Args) > 1 && os.Args[1] == shimArg {
		os.Exit(runShim(os.Args[2:]))
	}
	shimEnabled.Store(shimUsable())
}
