//go:build race

package pluginhost

const raceEnabled = true
