//go:build !linux

package terminal

// flushInput does nothing here; the approval prompt's settling still reads
// and discards what was typed before it.
func flushInput(int) {}
