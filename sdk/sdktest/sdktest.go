// Package sdktest lets plugin authors unit-test a plugin without running
// Hearth. A Harness starts the plugin, runs its tools on the path Hearth
// runs them on (sdk/toolcall: the same argument decoding, schema
// validation, deadline and result encoding), runs its stage handlers and
// records what it injects. Its stage handlers run in Hearth's stage
// pipeline (sdk/pipeline: the same order and the same permission matrix,
// so a write a stage does not allow is undone and logged, as in Hearth).
// It links nothing of Hearth's host: no database, no kernel. Hearth's
// own tests give plugins Hearth's services with internal/hosttest.
//
//	h := sdktest.Start(t, "weather", weather.NewPlugin, nil)
//	res := h.CallTool("query", map[string]any{"city": "北京"})
//	if res.IsError { t.Fatal(res.Content) }
package sdktest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/pipeline"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// T is the part of testing.TB a Harness uses; *testing.T and *testing.B
// satisfy it.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	Cleanup(func())
	TempDir() string
}

// Options configure a Harness. The zero value (or a nil *Options) gives
// in-memory settings (with a temporary DataDir), an in-memory KV and no
// other services.
type Options struct {
	// Services replaces the default services; nil fields stay unavailable,
	// except Settings, which defaults to NewSettings(), and KV, which
	// defaults to an empty KV (also given to tools in ToolContext.KV).
	Services host.Services
	// Reply answers InjectInputSync; nil answers "".
	Reply func(sdk.Injection) string
}

// Harness runs one plugin for a test.
type Harness struct {
	t        T
	name     string
	opts     Options
	pipeline *pipeline.Pipeline
	logs     *recorder
	plugin   sdk.Plugin
	sdk      *sdk.PluginSDK

	mu       sync.Mutex
	tools    map[string]*tool // by model-visible name
	injected []sdk.Injection
	hooks    []sdk.DecisionHook
}

var _ host.Host = (*Harness)(nil)

// Start creates the plugin with factory and starts it; it fails the test if
// either fails. The plugin's stop handlers and Stop run at cleanup.
func Start(t T, name string, factory sdk.NewPlugin, config map[string]any) *Harness {
	t.Helper()
	return StartWith(t, name, factory, config, nil)
}

// StartWith is Start with options; nil means the defaults.
func StartWith(t T, name string, factory sdk.NewPlugin, config map[string]any, options *Options) *Harness {
	t.Helper()
	var opts Options
	if options != nil {
		opts = *options
	}
	if opts.Services.Settings == nil {
		opts.Services.Settings = NewSettings()
	}
	if opts.Services.KV == nil {
		opts.Services.KV = &KV{}
	}
	if st, ok := opts.Services.Settings.(*Settings); ok {
		st = st.For(name)
		if *st.root == "" {
			st.SetDataDir(t.TempDir())
		}
		opts.Services.Settings = st
	}
	logs := newRecorder()
	h := &Harness{t: t, name: name, opts: opts, logs: logs, tools: map[string]*tool{}}
	h.pipeline = pipeline.New(slog.New(logs))
	if config == nil {
		config = map[string]any{}
	}
	p, err := factory(name, config)
	if err != nil {
		t.Fatalf("sdktest: creating plugin %q: %v", name, err)
	}
	if p == nil {
		t.Fatalf("sdktest: factory of %q returned nil", name)
	}
	h.plugin = p
	h.sdk = host.New(name, h)
	if err := p.Start(h.sdk); err != nil {
		t.Fatalf("sdktest: starting plugin %q: %v", name, err)
	}
	t.Cleanup(func() {
		host.RunStopHandlers(h.sdk)
		if err := p.Stop(); err != nil {
			t.Errorf("sdktest: stopping plugin %q: %v", name, err)
		}
	})
	return h
}

// SDK returns the PluginSDK the plugin received.
func (h *Harness) SDK() *sdk.PluginSDK { return h.sdk }

// Plugin returns the plugin.
func (h *Harness) Plugin() sdk.Plugin { return h.plugin }

// tool is one registered tool.
type tool struct {
	call toolcall.Tool
	def  sdk.ToolDef
}

// RegisterTool implements host.Host: the tool is named plugin__name, as
// the model sees it, and its schema compiled as Hearth compiles it.
func (h *Harness) RegisterTool(plugin string, def sdk.ToolDef, handler sdk.RawToolHandler) error {
	if handler == nil {
		return fmt.Errorf("sdktest: tool %q of plugin %q: nil handler", def.Name, plugin)
	}
	name, err := toolcall.Name(plugin, def.Name)
	if err != nil {
		return fmt.Errorf("sdktest: %w", err)
	}
	params, err := toolcall.Compile(def.Parameters)
	if err != nil {
		return fmt.Errorf("sdktest: tool %q: invalid parameter schema: %w", name, err)
	}
	def.Plugin = plugin
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, dup := h.tools[name]; dup {
		return fmt.Errorf("sdktest: tool %q is already registered", name)
	}
	h.tools[name] = &tool{call: toolcall.Tool{Name: name, Params: params, Timeout: def.Timeout, Handler: handler}, def: def}
	return nil
}

// RegisterStage implements host.Host; a bad registration fails the test.
func (h *Harness) RegisterStage(plugin string, stage sdk.Stage, own bool, handler sdk.StageHandler) {
	if err := h.pipeline.Register(plugin, stage, own, handler); err != nil {
		h.t.Errorf("sdktest: %v", err)
	}
}

// RegisterDecisionHook implements host.Host by recording the hook.
func (h *Harness) RegisterDecisionHook(plugin string, hook sdk.DecisionHook) {
	h.mu.Lock()
	h.hooks = append(h.hooks, hook)
	h.mu.Unlock()
}

// DecisionHooks returns the decision hooks the plugin registered, to call
// directly in a test.
func (h *Harness) DecisionHooks() []sdk.DecisionHook {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]sdk.DecisionHook(nil), h.hooks...)
}

// Inject implements host.Host by recording the input, with Source set to
// the plugin as Hearth sets it. Like Hearth, it refuses an injection into
// another channel or in a user's name unless the plugin's manifest
// declares sdk.CapabilityInjectChannels or sdk.CapabilityInjectUser.
func (h *Harness) Inject(plugin string, in sdk.Injection) error {
	if err := h.checkInjection(plugin, in); err != nil {
		return err
	}
	in.Source = plugin
	h.mu.Lock()
	h.injected = append(h.injected, in)
	h.mu.Unlock()
	return nil
}

// InjectSync implements host.Host: it records the input and answers with
// Options.Reply.
func (h *Harness) InjectSync(_ context.Context, plugin string, in sdk.Injection) (string, error) {
	if err := h.Inject(plugin, in); err != nil {
		return "", err
	}
	in.Source = plugin
	if h.opts.Reply == nil {
		return "", nil
	}
	return h.opts.Reply(in), nil
}

func (h *Harness) checkInjection(plugin string, in sdk.Injection) error {
	var caps []string
	if mp, ok := h.plugin.(sdk.ManifestProvider); ok {
		caps = mp.Manifest().Capabilities
	}
	if in.Channel != "" && in.Channel != plugin && in.Channel != "plugin:"+plugin && !slices.Contains(caps, sdk.CapabilityInjectChannels) {
		return fmt.Errorf("%w: plugin %q may inject only into its own channel, not %q (declare %q)",
			sdk.ErrInjectRefused, plugin, in.Channel, sdk.CapabilityInjectChannels)
	}
	if (in.UserID != "" || in.GroupID != "") && !slices.Contains(caps, sdk.CapabilityInjectUser) {
		return fmt.Errorf("%w: plugin %q may not speak as a user or group (declare %q)",
			sdk.ErrInjectRefused, plugin, sdk.CapabilityInjectUser)
	}
	return nil
}

// Services implements host.Host.
func (h *Harness) Services(string) host.Services { return h.opts.Services }

// Injected returns the inputs the plugin injected so far.
func (h *Harness) Injected() []sdk.Injection {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]sdk.Injection(nil), h.injected...)
}

// Tools returns the model-visible names of the plugin's tools, sorted.
func (h *Harness) Tools() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for name := range h.tools {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func (h *Harness) lookup(name string) (*tool, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.tools[h.fullName(name)]
	return t, ok
}

// ToolDef returns the definition of a tool, by its own or model-visible
// name.
func (h *Harness) ToolDef(name string) (sdk.ToolDef, bool) {
	t, ok := h.lookup(name)
	if !ok {
		return sdk.ToolDef{}, false
	}
	return t.def, true
}

func (h *Harness) fullName(name string) string {
	if strings.Contains(name, toolcall.Separator) {
		return name
	}
	return h.name + toolcall.Separator + name
}

// Result is a tool call's outcome as the model would see it.
type Result struct {
	Content  string            // the text sent to the model
	IsError  bool              // the model is told the call failed
	Value    any               // the handler's return value (or the error text)
	Metadata map[string]string // for renderers, not the model
}

// CallTool calls a tool (by its own or model-visible name) as the agent
// would, with args encoded to JSON and validated against the tool's schema.
func (h *Harness) CallTool(name string, args any) Result {
	return h.CallToolContext(context.Background(), nil, name, args)
}

// CallToolContext is CallTool with a context and ToolContext. A nil tc
// means the agent calling in a fresh turn.
func (h *Harness) CallToolContext(ctx context.Context, tc *sdk.ToolContext, name string, args any) Result {
	h.t.Helper()
	raw, err := encodeArgs(args)
	if err != nil {
		h.t.Fatalf("sdktest: encoding arguments of %s: %v", name, err)
	}
	full := h.fullName(name)
	if tc == nil {
		local := strings.TrimPrefix(full, h.name+toolcall.Separator)
		tc = &sdk.ToolContext{PluginID: h.name, Tool: local, Actor: sdk.ActorAgent, Turn: &sdk.TurnInfo{SessionID: "sdktest"}}
	}
	if tc.KV == nil {
		tc.KV = h.opts.Services.KV
	}
	t, ok := h.lookup(full)
	if !ok {
		r := toolcall.ErrorResult(nil, fmt.Sprintf("unknown tool %q", full))
		return Result{Content: r.Content, IsError: true, Value: r.Value}
	}
	r := t.call.Call(ctx, tc, raw)
	return Result{Content: r.Content, IsError: r.IsError, Value: r.Value, Metadata: r.Metadata}
}

func encodeArgs(args any) (json.RawMessage, error) {
	switch a := args.(type) {
	case nil:
		return nil, nil
	case string:
		return json.RawMessage(a), nil
	case json.RawMessage:
		return a, nil
	case []byte:
		return json.RawMessage(a), nil
	}
	return json.Marshal(args)
}

// RunStage runs the plugin's handlers of stage on sc, as Hearth would (in
// Hearth's pipeline, sdk/pipeline): in registration order, with writes
// the stage does not allow undone and refusals kept (see Logs), the stage
// run again while post_action or before_toolcall handlers change the tool
// calls, and handlers registered with RegisterStageOwnTools run as for a
// call of this plugin's own tool. It returns sc.
func (h *Harness) RunStage(stage sdk.Stage, sc *sdk.StageContext) *sdk.StageContext {
	if sc.Extra == nil {
		sc.Extra = map[string]any{}
	}
	h.pipeline.Run(stage, sc, h.name)
	return sc
}

// Logs returns what the host logged about the plugin: handler errors and
// panics, undone writes and kept refusals.
func (h *Harness) Logs() []string { return h.logs.lines() }

// recorder is a slog.Handler that keeps formatted records.
type recorder struct {
	attrs []slog.Attr
	sink  *logSink
}

type logSink struct {
	mu    sync.Mutex
	lines []string
}

func newRecorder() *recorder { return &recorder{sink: &logSink{}} }

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range r.attrs {
		add(a)
	}
	rec.Attrs(add)
	r.sink.mu.Lock()
	r.sink.lines = append(r.sink.lines, b.String())
	r.sink.mu.Unlock()
	return nil
}

func (r *recorder) WithAttrs(as []slog.Attr) slog.Handler {
	return &recorder{attrs: append(append([]slog.Attr(nil), r.attrs...), as...), sink: r.sink}
}

func (r *recorder) WithGroup(string) slog.Handler { return r }

func (r *recorder) lines() []string {
	r.sink.mu.Lock()
	defer r.sink.mu.Unlock()
	return append([]string(nil), r.sink.lines...)
}
