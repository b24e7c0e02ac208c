package pluginhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// serveHost answers the plugin's requests to the host, refusing methods
// of capability groups the manifest does not declare.
func (p *Process) serveHost(conn *wire.Conn) {
	handle := func(method string, h wire.Handler) {
		conn.Handle(method, func(ctx context.Context, params json.RawMessage) (any, error) {
			if g := wire.CapabilityGroup(method); g != "core" && !slices.Contains(p.m.Capabilities, g) {
				return nil, &wire.Error{Code: wire.CodeCapability, Message: fmt.Sprintf(
					"plugin %s may not call %s: add %q to \"capabilities\" in its plugin.json", p.m.ID, method, g)}
			}
			if registersBeyondTools[method] {
				p.runRecord().taint()
			}
			return h(ctx, params)
		})
	}
	progress := &progressRoutes{}
	handle(wire.MethodToolProgress, progress.notify)
	handle(wire.MethodWidgetsSet, p.widgetsSet)
	handle(wire.MethodToolsRegister, func(_ context.Context, raw json.RawMessage) (any, error) {
		var def wire.ToolDef
		if err := wire.DecodeParams(raw, &def); err != nil {
			return nil, err
		}
		d := def.Definition()
		if d.Timeout == 0 {
			d.Timeout = p.m.ToolTimeout()
		}
		if def.HasResolveEffect {
			d.ResolveEffect = remoteResolve(conn, p.name, d.Name)
		}
		if def.DynamicDescription {
			d.DescriptionFunc = p.describer(conn, d.Name, d.Description)
		}
		p.noteTool(d.Name)
		h := remoteTool(conn, p.name, d.Name, progress, &p.calls)
		rec := p.runRecord()
		if rec.tool(def, d, h) {
			return struct{}{}, nil // replaces the offered tools at the end of the handshake (offer.go)
		}
		if err := p.opts.Host.RegisterRemoteTool(p.name, d, h); err != nil {
			rec.refused(d.Name)
			return nil, &wire.Error{Code: wire.CodeRegisterRefused, Message: err.Error()}
		}
		return struct{}{}, nil
	})
	handle(wire.MethodStagesRegister, func(_ context.Context, raw json.RawMessage) (any, error) {
		var r wire.StageRegistration
		if err := wire.DecodeParams(raw, &r); err != nil {
			return nil, err
		}
		if !slices.Contains(sdk.Stages(), r.Stage) {
			return nil, &wire.Error{Code: wire.CodeRegisterRefused, Message: fmt.Sprintf("unknown stage %q", r.Stage)}
		}
		if r.Stage == sdk.StageBeforeToolcall && !r.OwnTools {
			p.hooked() // it can refuse other plugins' calls: a guard
		}
		if r.Guard {
			p.guardStage(r.Stage)
		}
		p.runRecord().stage(r.Stage) // offer.go
		p.opts.Host.RegisterStage(p.name, r.Stage, r.OwnTools, p.remoteStage(conn, r.ID, r.Stage, r.Guard))
		return struct{}{}, nil
	})
	handle(wire.MethodHooksRegister, func(_ context.Context, raw json.RawMessage) (any, error) {
		var r wire.HookRegistration
		if err := wire.DecodeParams(raw, &r); err != nil {
			return nil, err
		}
		p.hooked()
		p.opts.Host.RegisterDecisionHook(p.name, remoteHook(conn, p.name, r.ID, &p.calls))
		return struct{}{}, nil
	})
	handle(wire.MethodInject, func(_ context.Context, raw json.RawMessage) (any, error) {
		var in wire.InjectParams
		if err := wire.DecodeParams(raw, &in); err != nil {
			return nil, err
		}
		if err := p.opts.Host.Inject(p.name, in.Injection); err != nil {
			return nil, injectError(err)
		}
		return struct{}{}, nil
	})
	handle(wire.MethodInjectSync, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var in wire.InjectParams
		if err := wire.DecodeParams(raw, &in); err != nil {
			return nil, err
		}
		text, err := p.opts.Host.InjectSync(ctx, p.name, in.Injection)
		if err != nil {
			return nil, injectError(err)
		}
		return wire.InjectSyncResult{Text: text}, nil
	})
	llm := func(fn func(sdk.LLMAPI, json.RawMessage) (any, error)) wire.Handler {
		return func(_ context.Context, raw json.RawMessage) (any, error) {
			if p.opts.LLM == nil {
				return nil, &wire.Error{Code: wire.CodeUnavailable, Message: "this host has no model sources"}
			}
			return fn(p.opts.LLM, raw)
		}
	}
	handle(wire.MethodLLMList, llm(func(l sdk.LLMAPI, _ json.RawMessage) (any, error) { return l.ListSources(), nil }))
	handle(wire.MethodLLMCurrent, llm(func(l sdk.LLMAPI, _ json.RawMessage) (any, error) { return l.CurrentSource(), nil }))
	handle(wire.MethodLLMSet, llm(func(l sdk.LLMAPI, raw json.RawMessage) (any, error) {
		var sp wire.SourceParams
		if err := wire.DecodeParams(raw, &sp); err != nil {
			return nil, err
		}
		return struct{}{}, l.SetSource(sp.Name)
	}))
	p.serveSettings(handle)
	p.serveMemory(handle)
	p.serveChannels(conn, handle)
}

// injectError is the wire form of a refused or failed injection: a
// refusal carries the capability code.
func injectError(err error) error {
	if errors.Is(err, sdk.ErrInjectRefused) {
		return &wire.Error{Code: wire.CodeCapability, Message: err.Error()}
	}
	return err
}

// remoteValue is a child's tool result: its JSON, passed through, its
// error flag and the text its Cleaner made, if any.
type remoteValue struct {
	raw   json.RawMessage
	isErr bool
	mem   *string
}

func (v remoteValue) MarshalJSON() ([]byte, error) { return v.raw, nil }
func (v remoteValue) IsError() bool                { return v.isErr }

// MemoryText implements toolcall.MemoryTexter.
func (v remoteValue) MemoryText() (string, bool) { return deref(v.mem) }

// remoteText is a child's text result with an error flag, metadata or the
// text its Cleaner made.
type remoteText struct {
	text  string
	isErr bool
	meta  map[string]string
	mem   *string
}

func (r remoteText) Text() string                      { return r.text }
func (r remoteText) IsError() bool                     { return r.isErr }
func (r remoteText) ResultMetadata() map[string]string { return r.meta }

// MemoryText implements toolcall.MemoryTexter.
func (r remoteText) MemoryText() (string, bool) { return deref(r.mem) }

func deref(s *string) (string, bool) {
	if s == nil {
		return "", false
	}
	return *s, true
}

// remoteTool forwards calls of one tool to the plugin; the call's context
// (deadline, cancellation) travels as $/cancel.
// A call whose tc.Progress is set gets a progress token: the plugin's
// "tool.progress" notifications carrying it reach tc.Progress until the
// call returns. Every call gets a call token for the conversation ctx
// carries (calltoken.go).
func remoteTool(conn *wire.Conn, plugin, tool string, progress *progressRoutes, calls *callTokens) sdk.RawToolHandler {
	return func(ctx context.Context, tc *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
		cc := wire.FromToolContext(tc)
		cc.PluginID, cc.Tool = plugin, tool
		token, end := calls.open(scope.From(ctx))
		defer end()
		params := &wire.ToolCallParams{Tool: tool, Args: raw, Context: cc, CallToken: token}
		if tc != nil && tc.Progress != nil {
			token, done := progress.add(tc.Progress)
			defer done()
			params.ProgressToken = token
		}
		var res wire.ToolCallResult
		err := conn.Call(ctx, wire.MethodToolCall, params, &res)
		var rerr *wire.Error
		switch {
		case err == nil:
		case errors.As(err, &rerr) && rerr.Code == wire.CodeToolFailed:
			return nil, errors.New(rerr.Message)
		case errors.As(err, new(*wire.TooLargeError)):
			return nil, fmt.Errorf("plugin %s: %w", plugin, err)
		default:
			return nil, callError(plugin, err)
		}
		v := remoteResultValue(&res)
		if len(res.Images) == 0 && res.Note == "" {
			return v, nil
		}
		return remoteImages(v, &res), nil
	}
}

// remoteResultValue is the value of a child's tool result, without its
// images.
func remoteResultValue(res *wire.ToolCallResult) any {
	if res.Text != nil {
		if res.IsError || len(res.Metadata) > 0 || res.MemoryText != nil {
			return remoteText{text: *res.Text, isErr: res.IsError, meta: res.Metadata, mem: res.MemoryText}
		}
		return *res.Text
	}
	if len(res.Value) == 0 {
		return nil
	}
	if !res.IsError && res.MemoryText == nil {
		return toolcall.ValidJSON(res.Value) // checked with its message
	}
	return remoteValue{raw: res.Value, isErr: res.IsError, mem: res.MemoryText}
}

// remoteStage runs a stage handler in the plugin and copies the context
// back; the host's pipeline then undoes writes the stage does not allow.
// A before_toolcall handler that does not answer refuses the call, as a
// decision hook does: it may have been there to refuse it. So does a
// guard handler (StageRegistration.Guard) at a stage that may answer:
// the message is refused with guardFailedText; any other handler that
// cannot run is logged by the pipeline and the turn goes on.
func (p *Process) remoteStage(conn *wire.Conn, id int, stage sdk.Stage, guard bool) sdk.StageHandler {
	return func(sc *sdk.StageContext) error {
		ctx, cancel := context.WithTimeout(context.Background(), p.opts.StageTimeout)
		defer cancel()
		var res wire.StageRunResult
		token, end := p.calls.open(scope.Current()) // the kernel binds the turn's conversation around stage handlers
		defer end()
		if err := conn.Call(ctx, wire.MethodStageRun, wire.StageRunParams{ID: id, Context: wire.FromStage(sc), CallToken: token}, &res); err != nil {
			if stage == sdk.StageBeforeToolcall && len(sc.ToolCalls) == 1 {
				sc.ToolCalls[0].Deny = fmt.Sprintf("the before_toolcall handler of plugin %s did not answer: %v", p.m.ID, err)
			}
			if guard && stage != sdk.StageAfterOutput && sc.Response == nil {
				sc.SetResponse(fmt.Sprintf(guardFailedText, p.m.ID, p.m.ID))
			}
			return fmt.Errorf("stage handler of plugin %s: %w", p.m.ID, err)
		}
		injectedBy := sc.InjectedBy // read-only, not checked by the permission matrix
		res.Context.ApplyTo(sc)
		sc.InjectedBy = injectedBy
		if res.Error != "" {
			return errors.New(res.Error)
		}
		return nil
	}
}

// guardFailedText answers a message a guard stage handler could not check
// (both verbs name the plugin's id); the error goes to the log.
const guardFailedText = "The plugin %s could not check this message, so it was not sent to the assistant.\n" +
	"插件 %s 无法检查这条消息，因此没有发送给助手。"

// remoteHook asks a decision hook in the plugin. The policy engine bounds
// it with its own deadline and fails closed; an answer that is not a
// decision with one of the three verdicts (null, garbage, an empty or
// unknown verdict) is an error, so it refuses too.
func remoteHook(conn *wire.Conn, plugin string, id int, calls *callTokens) sdk.DecisionHook {
	return func(ctx context.Context, tc *sdk.ToolContext, tool string, args map[string]any) (sdk.HookDecision, error) {
		raw, err := json.Marshal(args)
		if err != nil {
			return sdk.HookDecision{}, err
		}
		token, end := calls.open(scope.From(ctx))
		defer end()
		var res json.RawMessage
		params := wire.HookDecideParams{ID: id, Tool: tool, Args: raw, Context: wire.FromToolContext(tc), CallToken: token}
		if err := conn.Call(ctx, wire.MethodHookDecide, params, &res); err != nil {
			return sdk.HookDecision{}, callError(plugin, err)
		}
		return decodeDecision(res)
	}
}

// callError names the plugin in err when err says its connection is gone,
// and returns any other error as it is.
func callError(plugin string, err error) error {
	if errors.Is(err, wire.ErrClosed) || errors.Is(err, io.EOF) {
		return fmt.Errorf("plugin %s is not running: %v", plugin, err)
	}
	return err
}

// decodeDecision decodes a hook.decide answer: an object whose verdict is
// allow, ask or deny. Anything else is an error.
func decodeDecision(raw json.RawMessage) (sdk.HookDecision, error) {
	var d sdk.HookDecision
	if err := strictObject(raw, &d); err != nil {
		return sdk.HookDecision{}, fmt.Errorf("its answer is not a decision: %w", err)
	}
	switch d.Verdict {
	case sdk.VerdictAllow, sdk.VerdictAsk, sdk.VerdictDeny:
		return d, nil
	}
	return sdk.HookDecision{}, fmt.Errorf("it answered verdict %q; want allow, ask or deny", d.Verdict)
}

// remoteResolve asks the plugin for the effect of one call of a tool with
// ResolveEffect. The policy engine bounds it with its deadline; an error,
// or an answer without a valid effect, refuses the call.
func remoteResolve(conn *wire.Conn, plugin, tool string) sdk.ResolveEffectFunc {
	return func(ctx context.Context, args map[string]any) (sdk.Assessment, error) {
		raw, err := json.Marshal(args)
		if err != nil {
			return sdk.Assessment{}, err
		}
		var res json.RawMessage
		if err := conn.Call(ctx, wire.MethodResolveEffect, wire.ResolveEffectParams{Tool: tool, Args: raw}, &res); err != nil {
			return sdk.Assessment{}, callError(plugin, err)
		}
		return decodeAssessment(res)
	}
}

// decodeAssessment decodes a tool.resolveEffect answer: an object with one
// of the four effects and an optional target. Anything else is an error.
func decodeAssessment(raw json.RawMessage) (sdk.Assessment, error) {
	var a sdk.Assessment
	if err := strictObject(raw, &a); err != nil {
		return sdk.Assessment{}, fmt.Errorf("the plugin's answer is not an assessment: %w", err)
	}
	if !a.Effect.Valid() {
		return sdk.Assessment{}, fmt.Errorf("the plugin answered effect %q; want read, write, money or public", a.Effect)
	}
	if a.Target != nil && a.Target.Label == "" {
		a.Target = nil
	}
	return a, nil
}

// strictObject decodes a JSON object; null, a missing answer or another
// kind of value is an error.
func strictObject(raw json.RawMessage, v any) error {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || b[0] != '{' {
		if len(b) == 0 {
			b = []byte("nothing")
		}
		return fmt.Errorf("got %.40s", b)
	}
	return wire.Unmarshal(b, v)
}
