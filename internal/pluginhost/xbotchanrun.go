package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hearth-agent/hearth/sdk"
)

// runXbotChannel serves an xbot channel plugin (see xbotchannel.go). Its
// channel opens at once; the answer to activate (tools, hooks, enrichers)
// is taken whenever it comes, and a plugin that never answers (xbot's
// web-ui-demo only listens for channel messages) runs as a channel alone,
// without holding up anything.
func (p *Process) runXbotChannel(sp *spawned, decl *xbotChannelDecl, timeout time.Duration) (autoRestart bool, err error) {
	pr, pw := io.Pipe()
	c := newXbotChan(p, decl, sp.stdin)
	defer p.opts.Widgets.clear(p.name)
	go c.demux(sp.stdout, pw)
	link := newXbotLink(pr, c.w, 2*timeout, p.log)
	if err := p.opts.Host.SetManifest(p.name, sdk.Manifest{ID: p.name, Name: p.name, Version: "0.0.0", DefaultModes: p.m.DefaultModes}); err != nil {
		sp.kill()
		<-sp.exited
		return false, err
	}
	if err := c.openChannel(); err != nil {
		sp.kill()
		<-sp.exited
		return false, err
	}
	actx, acancel := context.WithCancel(context.Background())
	defer acancel()
	activated := make(chan error, 1)
	go func() { activated <- p.activateChannel(actx, link, c, timeout) }()
	p.opts.Host.ResumeHooks(p.name)
	p.markRunning(sp.cmd.Process.Pid, "xbot channel "+decl.Name)

	for {
		select {
		case err := <-activated:
			activated = nil
			if err != nil {
				sp.kill()
				<-sp.exited
				return false, err
			}
			continue
		case werr := <-sp.exited:
			sp.kill()
			return true, fmt.Errorf("exited: %v", exitText(werr))
		case herr := <-link.hung:
			sp.kill()
			<-sp.exited
			return true, herr
		case <-p.stop:
		}
		break
	}
	acancel()
	// A channel plugin ends when its stdin does (xbot stops one by
	// closing it); deactivate goes first, unawaited, to one that answered
	// activate, as the request/response protocol has it.
	if activated == nil {
		_ = c.write(xbotRequest{Method: "deactivate"})
	}
	sp.stdin.Close()
	select {
	case <-sp.exited:
	case <-time.After(p.opts.GracePeriod):
	}
	sp.kill()
	return false, nil
}

// activateChannel sends activate and registers what the answer declares.
// No answer is not an error for a channel plugin; a refused activation
// or a guard whose matcher does not compile is.
func (p *Process) activateChannel(ctx context.Context, link *xbotLink, c *xbotChan, timeout time.Duration) error {
	resp, err := link.exchange(ctx, xbotRequest{Method: "activate", Params: map[string]any{"pluginId": p.m.ID}})
	switch {
	case errors.Is(err, context.Canceled):
		return nil
	case err != nil:
		p.log.Warn("xbot channel plugin: activate failed; it runs as a channel only", "err", err)
		return nil
	case resp.Error != "":
		return fmt.Errorf("activate failed: %s", resp.Error)
	}
	matchers, err := p.xbotMatchers(resp.Hooks)
	if err != nil {
		return err
	}
	if err := p.registerXbot(link, resp, matchers, timeout, c); err != nil {
		return err
	}
	p.guarded()
	return nil
}
