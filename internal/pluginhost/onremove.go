package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-agent/hearth/sdk/wire"
)

// removeDeadline bounds a plugin's remove handlers (plugin.remove).
const removeDeadline = 10 * time.Second

// RunRemoveHandlers lets the plugin named name run its remove handlers
// (HomeAgent's RegisterOnRemoveHandler) before `hearth plugin remove`
// takes its folder and data away: it starts the plugin from the folder
// Remove would take, asks it plugin.remove (waiting up to 10 s), and stops
// it. A plugin that has no such handler, or does not speak the Hearth
// protocol (xbot, .so folders), is left alone. No other plugin of the
// data directory may be running: the caller holds its lock, as for
// Remove.
func RunRemoveHandlers(ctx context.Context, st Forgetter, pluginsDir, name string, opts *Options) error {
	return runRemoveHandlers(ctx, st, pluginsDir, name, opts, nil)
}

// runRemoveHandlers is RunRemoveHandlers; a plugin whose id disabled
// reports true is not started.
func runRemoveHandlers(ctx context.Context, st Forgetter, pluginsDir, name string, opts *Options, disabled func(id string) bool) error {
	if err := checkForgettable(name); err != nil {
		return err
	}
	dir, err := removedFolder(ctx, st, pluginsDir, name)
	if err != nil || dir == "" {
		return err
	}
	m, err := LoadManifest(dir)
	if err != nil || m.Xbot() || len(m.Command) == 0 {
		return nil // nothing of ours to ask (a .so folder has no plugin.json)
	}
	if disabled != nil && disabled(m.ID) {
		return nil // the user stopped it from running: it does not run now either
	}
	p, err := Start(dir, opts)
	if err != nil {
		return err
	}
	defer p.Stop()
	wctx, cancel := context.WithTimeout(ctx, p.opts.HandshakeTimeout)
	defer cancel()
	if err := p.WaitReady(wctx); err != nil {
		return fmt.Errorf("plugin %s did not start to run its remove handlers: %w", name, err)
	}
	return p.runRemove(ctx)
}

// runRemove asks the running plugin to run its remove handlers; a plugin
// that does not know the method has none.
func (p *Process) runRemove(ctx context.Context) error {
	conn := p.conn.Load()
	if conn == nil {
		return fmt.Errorf("plugin %s is not running", p.name)
	}
	ctx, cancel := context.WithTimeout(ctx, removeDeadline)
	defer cancel()
	err := conn.Call(ctx, wire.MethodRemove, struct{}{}, nil)
	var rerr *wire.Error
	if errors.As(err, &rerr) && rerr.Code == wire.CodeMethodNotFound {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the remove handlers of plugin %s: %w", p.name, err)
	}
	return nil
}
