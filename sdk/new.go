package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
)

// New returns a PluginSDK for the plugin name that is not connected to
// Hearth: HomeAgent's constructor, which a HomeAgent plugin's own tests
// call to start the plugin against registrars of their own. Registrations
// go to the functions given (a nil one drops them, as in HomeAgent);
// Settings returns sett. Memory, TextMemory, DocMemory, Knowledge, LLM and
// KV are nil, as HomeAgent's New leaves its services; injecting input,
// decision hooks and input channels are dropped or fail with
// ErrUnavailable. Hearth itself never calls it: it builds a plugin's
// PluginSDK with package sdk/host.
func New(name string, sett SettingsAPI, regTool ToolRegistrar, regStage StageRegistrar, regAPI APIRegistrar, regOutput OutputChannelRegistrar) *PluginSDK {
	return &PluginSDK{name: name, autoRestart: true, b: &detached{
		sett: sett, regTool: regTool, regStage: regStage, regOutput: regOutput,
	}}
}

// detached is the backend of New: the caller's registrars and settings.
type detached struct {
	sett      SettingsAPI
	regTool   ToolRegistrar
	regStage  StageRegistrar
	regOutput OutputChannelRegistrar
}

func (d *detached) RegisterTool(plugin string, def ToolDef, h RawToolHandler) error {
	if d.regTool == nil {
		return nil
	}
	return d.regTool(def.Name, def, func(args map[string]any) (any, error) {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("tool %s: arguments: %w", def.Name, err)
		}
		return h(context.Background(), &ToolContext{PluginID: plugin, Tool: def.Name}, args, raw)
	})
}

// RegisterStage hands the handler to the stage registrar; one limited to
// the plugin's own tools sees only calls and results whose Plugin is the
// plugin's, as in HomeAgent.
func (d *detached) RegisterStage(plugin string, stage Stage, own bool, h StageHandler) {
	if d.regStage == nil {
		return
	}
	if !own {
		d.regStage(stage, h)
		return
	}
	d.regStage(stage, func(sc *StageContext) error {
		if (stage == StageBeforeToolcall && (len(sc.ToolCalls) == 0 || sc.ToolCalls[0].Plugin != plugin)) ||
			(stage == StageAfterToolcall && (len(sc.ToolResults) == 0 || sc.ToolResults[0].Plugin != plugin)) {
			return nil
		}
		return h(sc)
	})
}

func (d *detached) RegisterDecisionHook(string, DecisionHook) {}

func (d *detached) Inject(string, Injection) error {
	return fmt.Errorf("injecting input: the plugin is not connected to Hearth (sdk.New): %w", ErrUnavailable)
}

func (d *detached) InjectSync(context.Context, string, Injection) (string, error) {
	return "", d.Inject("", Injection{})
}

func (d *detached) RegisterChannel(_ string, reg ChannelRegistration) error {
	if !reg.Output || d.regOutput == nil {
		return nil
	}
	return d.regOutput(reg.Name, reg.Caps, reg.Description, reg.Def, reg.Handler)
}

func (d *detached) UnregisterChannel(string, string) error { return nil }
func (d *detached) Settings() SettingsAPI                  { return d.sett }
func (d *detached) Memory() MemoryAPI                      { return nil }
func (d *detached) TextMemory() TextMemoryAPI              { return nil }
func (d *detached) DocMemory() DocMemoryAPI                { return nil }
func (d *detached) Knowledge() KnowledgeAPI                { return nil }
func (d *detached) KV() KV                                 { return nil }
func (d *detached) LLM() LLMAPI                            { return nil }
func (d *detached) Logger() *slog.Logger                   { return slog.Default() }
