//go:build unix && !linux

package pluginhost

// runContainChild has nothing to run where plugins are not contained.
func runContainChild(string) {}
