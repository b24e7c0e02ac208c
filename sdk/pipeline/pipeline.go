// Package pipeline runs plugins' stage handlers (sdk.StageHandler): in
// registration order, one after another, with the permission matrix of
// sdk.StageContext enforced. A write to a field a stage may not change is
// undone and logged; a refusal (ToolCall.Deny, ToolCall.Ask) once set
// stays; a handler's error or panic is logged and the next handler runs;
// at post_action and before_toolcall the stage runs again until no
// handler changes the tool calls.
//
// Hosts use it: Hearth's kernel runs every message's stages through it,
// and sdk/sdktest runs a plugin's handlers under test through the same
// code, so that a plugin author's test sees what Hearth would do. Plugin
// authors do not need it: they register handlers with
// sdk.PluginSDK.RegisterStage and test them with sdktest.
//
// It imports only the standard library and sdk.
package pipeline

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
)

type handler struct {
	plugin string
	own    bool   // only for calls of this plugin's own tools
	seq    uint64 // registration order across the pipeline, from 1
	fn     sdk.StageHandler
}

// applies reports whether h runs for a call of toolPlugin's tool.
func (h handler) applies(toolPlugin string) bool { return !h.own || h.plugin == toolPlugin }

// Pipeline holds the stage handlers and runs them in registration order,
// one after another, enforcing the permission matrix of sdk.StageContext.
// Its methods may be called concurrently; the handlers of one Run run on
// the caller's goroutine.
type Pipeline struct {
	log *slog.Logger
	// canon maps a tool name to its tool's one canonical name (see
	// SetCanonical); nil means names are canonical already.
	canon func(string) string

	mu     sync.RWMutex
	stages map[sdk.Stage][]handler // copy on write
	seq    uint64                  // the last handler's seq
}

// New returns an empty pipeline logging to log (slog.Default() if nil).
func New(log *slog.Logger) *Pipeline {
	if log == nil {
		log = slog.Default()
	}
	return &Pipeline{log: log, stages: map[sdk.Stage][]handler{}}
}

// SetCanonical tells the pipeline how a host names tools that answer to
// more than one name (Hearth's tools answer to their short and their
// qualified name): canon returns the one name of the tool name stands
// for. A refusal set on a call then holds for the same call under its
// other name. Call it before the first Run.
func (p *Pipeline) SetCanonical(canon func(name string) string) { p.canon = canon }

// Register adds a handler of plugin at stage; own limits it to calls of
// plugin's own tools (sdk.PluginSDK.RegisterStageOwnTools). An unknown
// stage or a nil handler is an error.
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
	next := make([]handler, len(old), len(old)+1)
	copy(next, old)
	p.seq++
	p.stages[stage] = append(next, handler{plugin: plugin, own: own, seq: p.seq, fn: fn})
	return nil
}

// RemovePlugin withdraws every handler of plugin.
func (p *Pipeline) RemovePlugin(plugin string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for stage, hs := range p.stages {
		var keep []handler
		for _, h := range hs {
			if h.plugin != plugin {
				keep = append(keep, h)
			}
		}
		p.stages[stage] = keep
	}
}

// Has reports whether stage has any handler.
func (p *Pipeline) Has(stage sdk.Stage) bool { return p.Handlers(stage).Len() > 0 }

// Handlers returns the handlers of stage as registered now. Run them with
// Handlers.Run, and ask Handlers.Later which plugins registered one since.
func (p *Pipeline) Handlers(stage sdk.Stage) Handlers {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return Handlers{p: p, stage: stage, hs: p.stages[stage], mark: p.seq}
}

// Run runs the handlers of stage on sc: p.Handlers(stage).Run(sc, toolPlugin).
func (p *Pipeline) Run(stage sdk.Stage, sc *sdk.StageContext, toolPlugin string) {
	p.Handlers(stage).Run(sc, toolPlugin)
}

// Handlers is the handlers of one stage at one moment (Pipeline.Handlers):
// a host that must know whether every handler that applies to a call saw
// it runs these and asks Later afterwards.
type Handlers struct {
	p     *Pipeline
	stage sdk.Stage
	hs    []handler
	mark  uint64 // the pipeline's last seq when hs was taken
}

// Len returns the number of handlers.
func (hs Handlers) Len() int { return len(hs.hs) }

// Later returns the plugins with a handler of the stage for calls of
// toolPlugin's tools that was registered after hs was taken: handlers that
// did not see a call hs ran on.
func (hs Handlers) Later(toolPlugin string) []string {
	var plugins []string
	for _, h := range hs.p.Handlers(hs.stage).hs {
		if h.seq > hs.mark && h.applies(toolPlugin) && !slices.Contains(plugins, h.plugin) {
			plugins = append(plugins, h.plugin)
		}
	}
	return plugins
}

// Run runs the handlers on sc. toolPlugin names the plugin whose tool the
// stage is about (before_toolcall, after_toolcall), for handlers
// registered with own set; "" elsewhere. A handler that errors or panics
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
func (hs Handlers) Run(sc *sdk.StageContext, toolPlugin string) {
	if len(hs.hs) == 0 {
		return
	}
	for pass := 1; ; pass++ {
		changer, ended := hs.pass(sc, toolPlugin)
		if ended || changer == "" || permissions[hs.stage]&fToolCalls == 0 {
			return
		}
		if pass == maxPasses {
			for i := range sc.ToolCalls {
				if sc.ToolCalls[i].Deny == "" {
					sc.ToolCalls[i].Deny = unsettled
				}
			}
			hs.p.log.Warn("stage handlers kept changing the tool calls; they are refused",
				"stage", hs.stage, "passes", pass, "plugin", changer)
			return
		}
	}
}

// maxPasses bounds the passes of a stage whose handlers keep changing the
// tool calls. A handler that normalises a call settles in the second.
const maxPasses = 3

// unsettled is the refusal of calls that stage handlers kept changing.
const unsettled = "stage handlers kept changing this call, so no check can be sure it saw the call as it would run"

// pass runs the handlers once, in order. It returns the plugin of the last
// handler that changed the tool calls (other than by refusing them), ""
// when none did, and whether a handler ended the turn (set Response).
func (hs Handlers) pass(sc *sdk.StageContext, toolPlugin string) (changer string, ended bool) {
	stage, log := hs.stage, hs.p.log
	sc.Phase = stage
	for _, h := range hs.hs {
		if !h.applies(toolPlugin) {
			continue
		}
		before := save(sc)
		before.canon = hs.p.canon
		if err := call(log, h, sc); err != nil {
			log.Warn("stage handler failed", "plugin", h.plugin, "stage", stage, "err", err)
		}
		for _, field := range before.enforce(stage, sc) {
			log.Warn("stage handler wrote a field its stage may not change; the write was undone",
				"plugin", h.plugin, "stage", stage, "field", field)
		}
		for _, r := range before.keepRefusals(sc) {
			log.Warn("stage handler cleared or weakened a refusal set before it; the refusal stays",
				"plugin", h.plugin, "stage", stage, "call", r.call, "field", r.field, "kept", r.kept)
		}
		if !sameCalls(before.toolCalls, sc.ToolCalls, hs.p.canon) {
			changer = h.plugin
		}
		sc.Phase = stage
		if before.response == nil && sc.Response != nil {
			return changer, true
		}
	}
	return changer, false
}

// call runs h on sc, turning a panic into an error (and logging its stack).
func call(log *slog.Logger, h handler, sc *sdk.StageContext) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
			log.Error("stage handler panicked", "plugin", h.plugin, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	return h.fn(sc)
}
