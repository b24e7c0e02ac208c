//go:build !unix

package main

import (
	"os"
	"time"
)

// readByteWithin waits d and reads nothing: without poll(2), a key typed
// while a test request runs is read at the next prompt, and Ctrl-C is
// seen once the request ends (at most llm.ProbeTimeout).
func readByteWithin(in *os.File, d time.Duration) (c byte, ok bool, err error) {
	time.Sleep(d)
	return 0, false, nil
}
