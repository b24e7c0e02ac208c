package pluginhost

import (
	"sync/atomic"

	"github.com/hearth-agent/hearth/internal/pluginhost/shim"
)

// shimArg is the hidden first argument that makes a Hearth binary a
// plugin's supervisor instead of Hearth.
const shimArg = shim.Arg

// shimEnabled is set by ShimMain: the program can run the supervisor, so
// plugins start under it.
var shimEnabled atomic.Bool

// ShimMain enables the plugin supervisor ("shim"): process plugins started
// from then on run under it. Call it first thing in main, and in TestMain
// of every test binary that starts process plugins (the shim is this same
// binary, re-executed). A process started as a shim never reaches it: the
// supervisor runs, and exits, from the init of package
// internal/pluginhost/shim, which pluginhost imports, before most other
// packages are initialized (see that package's doc).
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
	shimEnabled.Store(shim.Usable())
}
