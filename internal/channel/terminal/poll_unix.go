//go:build unix

package terminal

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// canPoll says readable can wait with a deadline.
const canPoll = true

// readable waits up to d for fd to have input.
func readable(fd int, d time.Duration) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(d/time.Millisecond))
	if errors.Is(err, unix.EINTR) {
		return false, nil
	}
	return n > 0, err
}
