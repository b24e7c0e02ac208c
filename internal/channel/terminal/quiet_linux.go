//go:build linux

package terminal

import "golang.org/x/sys/unix"

// quietInput stops the terminal from echoing and line-editing what the
// user types while an answer streams, so typed-ahead keys reach the line
// editor as typed (Enter stays Enter) instead of being echoed into the
// answer. Output processing and Ctrl-C's signal stay on. It returns the
// function that restores the previous mode.
func quietInput(fd int) func() {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return func() {}
	}
	old := *t
	t.Lflag &^= unix.ICANON | unix.ECHO | unix.IEXTEN
	t.Iflag &^= unix.ICRNL | unix.INLCR | unix.IXON
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if unix.IoctlSetTermios(fd, unix.TCSETS, t) != nil {
		return func() {}
	}
	return func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, &old) }
}
