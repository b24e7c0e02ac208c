//go:build unix

package main

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// readByteWithin reads a byte from the terminal if one is typed within d;
// ok is false when none was.
func readByteWithin(in *os.File, d time.Duration) (c byte, ok bool, err error) {
	fds := []unix.PollFd{{Fd: int32(in.Fd()), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(d/time.Millisecond))
	if errors.Is(err, unix.EINTR) || n == 0 && err == nil {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	b := make([]byte, 1)
	if k, err := in.Read(b); k == 1 {
		return b[0], true, nil
	} else if err != nil {
		return 0, false, err
	}
	return 0, false, nil
}
