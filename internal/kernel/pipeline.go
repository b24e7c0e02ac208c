package kernel

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
)

type stageHandler struct {
	plugin string
	own    bool // only for calls of this plugin's own tools
	fn     sdk.StageHandler
}

// Pipeline holds the stage handlers and runs them in registration order,
// one after another, enforcing the permission matrix of sdk.StageContext.
type Pipeline struct {
	log *slog.Logger

	mu     sync.RWMutex
	stages map[sdk.Stage][]stageHandler // copy on write
}

// NewPipeline returns an empty pipeline logging to log.
func NewPipeline(log *slog.Logger) *Pipeline {
	if log == nil {
		log = slog.Default()
	}
	return &Pipeline{log: log, stages: map[sdk.Stage][]stageHandler{}}
}

// Register adds a handler of plugin at stage. An unknown stage is an error.
func (p *Pipeline) Register(plugin string, stage sdk.Stage, own bool, fn sdk.StageHandler) error {
	if _, ok := permissions[stage]; !ok {
		return fmt.Errorf("plugin %q: unknown stage %q", plugin, stage)
	}
	if fn == nil {
		return fmt.Errorf("plugin %q: nil handler for stage %q", plugin, stage)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.stages[stage]
	next := make([]stageHandler, len(old), len(old)+1)
	copy(next, old)
	p.stages[stage] = append(next, stageHandler{plugin: plugin, own: own, fn: fn})
	return nil
}

// RemovePlugin withdraws every handler of plugin.
func (p *Pipeline) RemovePlugin(plugin string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for stage, hs := range p.stages {
		var keep []stageHandler
		for _, h := range hs {
			if h.plugin != plugin {
				keep = append(keep, h)
			}
		}
		p.stages[stage] = keep
	}
}

func (p *Pipeline) handlers(stage sdk.Stage) []stageHandler {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.stages[stage]
}

// has reports whether stage has any handler.
func (p *Pipeline) has(stage sdk.Stage) bool { return len(p.handlers(stage)) > 0 }

// Run runs the handlers of stage on sc. toolPlugin names the plugin whose
// tool the stage is about (before_toolcall, after_toolcall), for handlers
// registered with RegisterStageOwnTools. A handler that errors or panics
// is logged and the next one runs; a write the stage does not allow is
// undone and logged, and so is a write that clears or weakens a refusal
// (ToolCall.Deny, ToolCall.Ask) an earlier handler set. Once a handler
// sets Response the remaining handlers of the stage are skipped.
func (p *Pipeline) Run(stage sdk.Stage, sc *sdk.StageContext, toolPlugin string) {
	hs := p.handlers(stage)
	if len(hs) == 0 {
		return
	}
	sc.Phase = stage
	for _, h := range hs {
		if h.own && h.plugin != toolPlugin {
			continue
		}
		before := takeSnapshot(sc)
		if err := p.call(h, sc); err != nil {
			p.log.Warn("stage handler failed", "plugin", h.plugin, "stage", stage, "err", err)
		}
		for _, field := range before.enforce(stage, sc) {
			p.log.Warn("stage handler wrote a field its stage may not change; the write was undone",
				"plugin", h.plugin, "stage", stage, "field", field)
		}
		for _, r := range before.keepRefusals(sc) {
			p.log.Warn("stage handler cleared or weakened a refusal set before it; the refusal stays",
				"plugin", h.plugin, "stage", stage, "call", r.call, "field", r.field, "kept", r.kept)
		}
		sc.Phase = stage
		if before.response == nil && sc.Response != nil {
			return
		}
	}
}

func (p *Pipeline) call(h stageHandler, sc *sdk.StageContext) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
			p.log.Error("stage handler panicked", "plugin", h.plugin, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	return h.fn(sc)
}
