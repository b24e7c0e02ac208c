package sdktest

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
)

// pipeline is the Harness's own stage pipeline (Options.Stages nil): the
// handlers of a stage run in registration order; one that errors or
// panics is logged and the next runs; once one sets Response the rest are
// skipped. Hearth's pipeline does the same and also enforces which fields
// each stage may write.
type pipeline struct {
	log      *slog.Logger
	mu       sync.Mutex
	handlers []stageHandler
}

type stageHandler struct {
	plugin string
	stage  sdk.Stage
	own    bool
	fn     sdk.StageHandler
}

func (p *pipeline) Register(plugin string, stage sdk.Stage, own bool, fn sdk.StageHandler) error {
	if !slices.Contains(sdk.Stages(), stage) {
		return fmt.Errorf("plugin %q: unknown stage %q", plugin, stage)
	}
	if fn == nil {
		return fmt.Errorf("plugin %q: nil handler for stage %q", plugin, stage)
	}
	p.mu.Lock()
	p.handlers = append(p.handlers, stageHandler{plugin, stage, own, fn})
	p.mu.Unlock()
	return nil
}

func (p *pipeline) Run(stage sdk.Stage, sc *sdk.StageContext, toolPlugin string) {
	p.mu.Lock()
	hs := slices.Clone(p.handlers)
	p.mu.Unlock()
	for _, h := range hs {
		if h.stage != stage || h.own && h.plugin != toolPlugin {
			continue
		}
		sc.Phase = stage
		ended := sc.Response != nil
		if err := p.call(h, sc); err != nil {
			p.log.Warn("stage handler failed", "plugin", h.plugin, "stage", stage, "err", err)
		}
		if !ended && sc.Response != nil {
			return
		}
	}
}

func (p *pipeline) call(h stageHandler, sc *sdk.StageContext) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return h.fn(sc)
}
