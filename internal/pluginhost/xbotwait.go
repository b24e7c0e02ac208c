package pluginhost

import (
	"os"
	"path/filepath"
)

// An xbot plugin that never answers activate must not hold up every
// command that waits for the plugins: once its activate goes unanswered
// past the handshake timeout, WaitReady stops waiting for it, its status
// says why, and the supervisor keeps retrying in the background. A file
// in its data folder remembers it for the next Hearth process, which then
// starts the plugin without waiting for it at all; the first answered
// activate removes the file. (An xbot channel plugin never makes anyone
// wait: see runXbotChannel.)

// unansweredFile marks, in a plugin's data folder, that its last activate
// went unanswered.
const unansweredFile = ".hearth-activate-unanswered"

func (p *Process) unansweredPath() string {
	return filepath.Join(p.opts.DataDir, "plugin_data", p.name, unansweredFile)
}

// giveUpWaiting records that the plugin left activate unanswered.
func (p *Process) giveUpWaiting(err error) {
	if werr := os.WriteFile(p.unansweredPath(), []byte(err.Error()+"\n"), 0o600); werr != nil {
		p.log.Warn("could not remember the unanswered activate", "err", werr)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unanswered = true
	p.lastErr = err.Error()
	p.changedLocked()
}

// activateAnswered forgets an unanswered activate of an earlier run.
func (p *Process) activateAnswered() {
	p.mu.Lock()
	p.unanswered = false
	p.mu.Unlock()
	if err := os.Remove(p.unansweredPath()); err != nil && !os.IsNotExist(err) {
		p.log.Warn("could not forget the unanswered activate", "err", err)
	}
}

// rememberUnanswered starts a plugin whose last activate went unanswered
// as one WaitReady does not wait for.
func (p *Process) rememberUnanswered() {
	if !p.m.Xbot() || p.opts.DataDir == "" {
		return
	}
	b, err := os.ReadFile(p.unansweredPath())
	if err != nil {
		return
	}
	p.unanswered = true
	p.lastErr = "not waited for: its last activate went unanswered (" + string(trimNL(b)) + ")"
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// notWaited reports whether WaitReady should not wait for the plugin.
func (p *Process) notWaited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unanswered
}
