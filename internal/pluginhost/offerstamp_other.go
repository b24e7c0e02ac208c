//go:build !linux && !darwin

package pluginhost

import "io/fs"

// changeStamp is "" where Hearth does not read a file's change time: the
// print (offerPrint) is then of paths, sizes, modes and modification
// times only, which a file's owner can set back (see docs/plugins.md).
func changeStamp(fs.FileInfo) string { return "" }
