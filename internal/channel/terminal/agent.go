package terminal

import (
	"context"

	"github.com/hearth-agent/hearth/internal/kernel"
)

// Agent is what the terminal talks to: the kernel in the same process, or
// a running daemon through internal/channel/remote. Its methods mean what
// the kernel's do.
type Agent interface {
	// Ask runs one turn and waits for its outcome; in.OnEvent receives its
	// events and in.Approver is asked about tool calls that need approval.
	// Cancelling ctx interrupts the turn.
	Ask(ctx context.Context, in kernel.Input) kernel.Outcome
	// SetSink routes the events of turns nobody else shows on channel (""
	// for every channel without a sink of its own) to fn; nil removes it.
	SetSink(channel string, fn kernel.Sink)
	// ResetSession forgets the history of the channel's chat.
	ResetSession(ctx context.Context, channel, chatID string) error
}

var _ Agent = (*kernel.Kernel)(nil)
