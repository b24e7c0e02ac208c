package kernel

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
)

type stageHandler struct {
	plugin string
	own    bool   // only for calls of this plugin's own tools
	seq    uint64 // registration order across the pipeline, from 1
	fn     sdk.StageHandler
}

// applies reports whether h runs for a call of toolPlugin's tool.
func (h stageHandler) applies(toolPlugin string) bool { return !h.own || h.plugin == toolPlugin }

// Pipeline holds the stage handlers and runs them in registration order,
// one after another, enforcing the permission matrix of sdk.StageContext.
type Pipeline struct {
	log *slog.Logger

	mu     sync.RWMutex
	stages map[sdk.Stage][]stageHandler // copy on write
	seq    uint64                       // the last handler's seq
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
	p.seq++
	p.stages[stage] = append(next, stageHandler{plugin: plugin, own: own, seq: p.seq, fn: fn})
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
	hs, _ := p.snapshot(stage)
	return hs
}

// snapshot returns the handlers of stage and a mark: handlers registered
// later have a greater seq (see since).
func (p *Pipeline) snapshot(stage sdk.Stage) ([]stageHandler, uint64) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.stages[stage], p.seq
}

// since returns the plugins with a handler of stage for calls of
// toolPlugin's tools that was registered after mark: handlers that did not
// see a call the stage ran on at mark.
func (p *Pipeline) since(stage sdk.Stage, mark uint64, toolPlugin string) []string {
	var plugins []string
	for _, h := range p.handlers(stage) {
		if h.seq > mark && h.applies(toolPlugin) && !slices.Contains(plugins, h.plugin) {
			plugins = append(plugins, h.plugin)
		}
	}
	return plugins
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
//
// At the stages that may change the tool calls (post_action,
// before_toolcall), every handler sees the calls as they will run: when a
// handler changed a call's id, name or arguments, or added, removed or
// reordered calls, the stage runs again, all its handlers in order, on the
// calls as they now are, until a pass in which no handler changed them.
// Calls still changing after maxPasses passes are refused.
func (p *Pipeline) Run(stage sdk.Stage, sc *sdk.StageContext, toolPlugin string) {
	p.run(stage, p.handlers(stage), sc, toolPlugin)
}

// maxPasses bounds the passes of a stage whose handlers keep changing the
// tool calls. A handler that normalises a call settles in the second.
const maxPasses = 3

// unsettled is the refusal of calls that stage handlers kept changing.
const unsettled = "stage handlers kept changing this call, so no check can be sure it saw the call as it would run"

// run is Run with the handlers taken beforehand (see snapshot).
func (p *Pipeline) run(stage sdk.Stage, hs []stageHandler, sc *sdk.StageContext, toolPlugin string) {
	if len(hs) == 0 {
		return
	}
	for pass := 1; ; pass++ {
		changer, ended := p.pass(stage, hs, sc, toolPlugin)
		if ended || changer == "" || permissions[stage]&fToolCalls == 0 {
			return
		}
		if pass == maxPasses {
			for i := range sc.ToolCalls {
				if sc.ToolCalls[i].Deny == "" {
					sc.ToolCalls[i].Deny = unsettled
				}
			}
			p.log.Warn("stage handlers kept changing the tool calls; they are refused",
				"stage", stage, "passes", pass, "plugin", changer)
			return
		}
	}
}

// pass runs the handlers of stage once, in order. It returns the plugin of
// the last handler that changed the tool calls (other than by refusing
// them), "" when none did, and whether a handler ended the turn (set
// Response).
func (p *Pipeline) pass(stage sdk.Stage, hs []stageHandler, sc *sdk.StageContext, toolPlugin string) (changer string, ended bool) {
	sc.Phase = stage
	for _, h := range hs {
		if !h.applies(toolPlugin) {
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
		if !sameCalls(before.toolCalls, sc.ToolCalls) {
			changer = h.plugin
		}
		sc.Phase = stage
		if before.response == nil && sc.Response != nil {
			return changer, true
		}
	}
	return changer, false
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
