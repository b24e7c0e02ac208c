//go:build !unix

package terminal

import "time"

// readable reports input as available at once: without poll(2) a prompt
// cannot time out while waiting, and the read blocks until the user
// answers.
func readable(int, time.Duration) (bool, error) { return true, nil }

// canPoll says readable cannot wait: an approval prompt does not wait for
// typing to pause here.
const canPoll = false
