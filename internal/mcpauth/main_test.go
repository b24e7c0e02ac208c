package mcpauth

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: the loopback
// listener, the sessions and the refreshes all end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
