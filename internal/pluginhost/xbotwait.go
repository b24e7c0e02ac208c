package pluginhost

// An xbot plugin that never answers activate (xbot's web-ui-demo is one:
// it only listens for channel messages) must not hold up every command
// that waits for the plugins: once its activate goes unanswered past the
// handshake timeout, WaitReady stops waiting for it, its status says
// why, and the supervisor keeps retrying in the background.

// giveUpWaiting records that the plugin left activate unanswered.
func (p *Process) giveUpWaiting(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unanswered = true
	p.lastErr = err.Error()
	p.changedLocked()
}

// notWaited reports whether WaitReady should not wait for the plugin.
func (p *Process) notWaited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unanswered
}
