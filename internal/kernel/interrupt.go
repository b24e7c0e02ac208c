package kernel

// Interrupt cancels the turn a session is answering, as an input with
// Interrupt set does (its cause is ErrInterrupted, its events end with
// EventInterrupted), without sending anything: a stop button. Inputs
// queued behind the turn are answered next, as usual. It reports whether
// a turn was running; false when the session is idle or unknown (a turn
// ending at that very moment may be reported true and finish anyway).
func (k *Kernel) Interrupt(channel, chatID string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.sessions[sessionKey{channel, chatID}]
	if s == nil || !s.running || s.cancelTurn == nil {
		return false
	}
	s.cancelTurn(ErrInterrupted)
	return true
}
