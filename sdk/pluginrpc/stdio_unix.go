//go:build unix

package pluginrpc

import (
	"os"
	"syscall"
)

// pollableStdin returns stdin switched to non-blocking mode and registered
// with Go's poller, so a goroutine waiting for the next request parks
// instead of holding an OS thread (and its scheduler slot) in read(2):
// requests then start without waiting for the runtime to take the slot
// back. It falls back to os.Stdin.
func pollableStdin() *os.File {
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	return os.NewFile(0, "/dev/stdin")
}
