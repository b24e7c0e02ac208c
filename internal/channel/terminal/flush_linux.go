//go:build linux

package terminal

import "golang.org/x/sys/unix"

// flushInput discards what was typed on the terminal fd and not yet read.
func flushInput(fd int) { _ = unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
