package pluginhost

import (
	"fmt"
	"slices"

	"github.com/hearth-agent/hearth/sdk"
)

// Guard stage handlers (wire.StageRegistration.Guard) refuse the message
// when Hearth cannot run them (remoteStage). While their plugin is down
// (crashed and waiting to restart, or failed for good) its handlers are withdrawn
// with the rest of what it registered, so a stand-in takes their place:
// it refuses every message until a new run of the plugin has finished its
// handshake (its own handlers are registered by then), and is removed with
// the plugin's other registrations when it is stopped on purpose or goes
// down again. A reload (a new Process for the folder) has no stand-in:
// the new process's handshake registers its handlers.

// guardStage records, during a handshake, a guard handler of stage.
func (p *Process) guardStage(stage sdk.Stage) {
	if stage == sdk.StageAfterOutput {
		return // the answer is out already: nothing to refuse
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.runGuardStages, stage) {
		p.runGuardStages = append(p.runGuardStages, stage)
	}
}

// guardStagesReady makes the guard handlers of the run whose handshake
// just ended the plugin's, and retires any stand-in.
func (p *Process) guardStagesReady() {
	p.mu.Lock()
	p.guardStages, p.runGuardStages = p.runGuardStages, nil
	p.mu.Unlock()
	p.guardGen.Add(1)
}

// standInGuards registers, for a plugin that just went down, a stand-in
// for each stage it had a guard handler of: the message is refused until
// the next run's handshake ends.
func (p *Process) standInGuards() {
	p.mu.Lock()
	stages := slices.Clone(p.guardStages)
	p.runGuardStages = nil
	p.mu.Unlock()
	gen := p.guardGen.Load()
	for _, stage := range stages {
		p.opts.Host.RegisterStage(p.name, stage, false, func(sc *sdk.StageContext) error {
			if p.guardGen.Load() != gen || sc.Response != nil {
				return nil // the plugin is back: its own handler decides
			}
			sc.SetResponse(fmt.Sprintf(guardDownText, p.m.ID, p.m.ID))
			return nil
		})
	}
}

// guardDownText answers a message while a plugin that checks messages is
// not running (both verbs name the plugin's id).
const guardDownText = "The plugin %s, which checks messages, is not running, so this message was not sent to the assistant.\n" +
	"插件 %s 负责检查消息，但它没有在运行，因此这条消息没有发送给助手。"
