// Package soload opens HomeAgent's dynamic plugins (.so files built with
// go build -buildmode=plugin). Only the loader program, cmd/hearth-soload,
// imports it: Hearth itself never links Go's plugin package, which keeps
// its binary small and a crashing .so out of its process. The loader
// serves the opened plugin over Hearth's plugin protocol (sdk/pluginrpc),
// so its tools, stages and channels reach the kernel as a Go child
// plugin's do.
package soload
