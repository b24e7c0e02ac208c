// Package pluginrpc runs a plugin written against sdk/ as a child process
// of Hearth with no other change than
//
//	func main() { pluginrpc.Serve(myplugin.New) }
//
// Serve speaks the protocol (package sdk/wire, specified in
// docs/protocol.md) on stdin and stdout; ServeConn does the same over any
// reader and writer.
package pluginrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hearth-agent/hearth/internal/goid"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/internal/codec"
	"github.com/hearth-agent/hearth/sdk/toolcall"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// Serve runs a plugin as a child process of Hearth, speaking the protocol
// on stdin and stdout; the plugin's logs go to stderr as JSON, which Hearth
// re-emits into its own log. It returns only by exiting the process: 0
// after the host shut the plugin down or closed stdin, 1 on a protocol
// failure.
//
// Anything the plugin prints to os.Stdout goes to stderr instead, so stray
// output cannot corrupt the protocol.
func Serve(factory sdk.NewPlugin) {
	out := os.Stdout
	os.Stdout = os.Stderr
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if err := ServeConn(context.Background(), os.Stdin, out, factory, log); err != nil {
		log.Error("plugin protocol failed", "err", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// ServeConn serves a plugin over r and w until the host shuts it down or
// closes r, or ctx is cancelled. Then it closes the connection, which
// closes r if it is an io.Closer, and returns once nothing reads r (see
// wire.Conn.Close: a read that closing r does not interrupt ends when the
// host writes or closes its end).
func ServeConn(ctx context.Context, r io.Reader, w io.Writer, factory sdk.NewPlugin, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	c := &child{factory: factory, log: log,
		tools: map[string]sdk.RawToolHandler{}, defs: map[string]sdk.ToolDef{}, stages: map[int]sdk.StageHandler{}, hooks: map[int]sdk.DecisionHook{}}
	c.conn = wire.NewConn(r, w, log)
	c.conn.Handle(wire.MethodInitialize, c.initialize)
	c.conn.Handle(wire.MethodToolCall, c.toolCall)
	c.conn.Handle(wire.MethodStageRun, c.stageRun)
	c.conn.Handle(wire.MethodHookDecide, c.hookDecide)
	c.conn.Handle(wire.MethodResolveEffect, c.resolveEffect)
	c.conn.Handle(wire.MethodToolDescribe, c.describe)
	c.conn.Handle(wire.MethodContext, c.context)
	c.conn.Handle(wire.MethodInstructions, c.instructions)
	c.conn.Handle(wire.MethodShutdown, c.shutdown)
	c.conn.Handle(wire.MethodRemove, c.remove)
	c.conn.Handle(wire.MethodChannelSend, c.channelSend)
	c.conn.Handle(wire.MethodPing, func(context.Context, json.RawMessage) (any, error) { return "pong", nil })
	runErr := make(chan error, 1)
	go func() { runErr <- c.conn.Run() }()
	// After "shutdown" the host closes stdin, which ends Run; a host that
	// goes away without a shutdown ends it too, and the plugin is stopped.
	select {
	case err := <-runErr:
		c.stop()
		if errors.Is(err, io.EOF) || errors.Is(err, wire.ErrClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
		c.stop()
		c.conn.Close(ctx.Err())
		<-runErr
		return nil
	}
}

// child is the plugin's side: it implements host.Host over the connection.
type child struct {
	factory sdk.NewPlugin
	log     *slog.Logger
	conn    *wire.Conn

	mu     sync.Mutex
	name   string
	params wire.InitializeParams
	plugin sdk.Plugin
	sdk    *sdk.PluginSDK
	tools  map[string]sdk.RawToolHandler
	stages map[int]sdk.StageHandler

	defs     map[string]sdk.ToolDef // for ResolveEffect
	manifest sdk.Manifest
	hooks    map[int]sdk.DecisionHook
	nextID   int
	channels map[string]sdk.ToolHandler // output channel -> handler (channels.go)

	// calls are the call tokens of the host requests being served, by
	// the goroutine running each handler (calltoken.go).
	calls  goid.Local[string]
	scoped atomic.Bool // the plugin may use memory or knowledge, which send call tokens
}

var _ host.Host = (*child)(nil)

func (c *child) initialize(ctx context.Context, raw json.RawMessage) (any, error) {
	var p wire.InitializeParams
	if err := codec.Unmarshal(raw, &p); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	if !slices.Contains(p.ProtocolVersions, wire.ProtocolVersion) {
		data, _ := codec.Marshal(wire.VersionErrorData{Supported: []int{wire.ProtocolVersion}})
		return nil, &wire.Error{Code: wire.CodeVersion, Data: data, Message: fmt.Sprintf(
			"the plugin speaks protocol version %d; the host offered %v", wire.ProtocolVersion, p.ProtocolVersions)}
	}
	p2, err := c.factory(p.Plugin, p.Config)
	if err != nil {
		return nil, fmt.Errorf("creating plugin %q: %w", p.Plugin, err)
	}
	if p2 == nil {
		return nil, fmt.Errorf("creating plugin %q: factory returned nil", p.Plugin)
	}
	c.mu.Lock()
	c.name, c.params, c.plugin = p.Plugin, p, p2
	c.mu.Unlock()
	c.scoped.Store(slices.Contains(p.Capabilities, "memory") || slices.Contains(p.Capabilities, "knowledge"))
	s := host.New(p.Plugin, c)
	c.mu.Lock()
	c.sdk = s
	c.mu.Unlock()
	if err := p2.Start(s); err != nil {
		return nil, fmt.Errorf("starting plugin %q: %w", p.Plugin, err)
	}
	res := wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, SDKVersion: sdk.SDKVersion, Name: p2.Name(), AutoRestart: s.AutoRestart()}
	if mp, ok := p2.(sdk.ManifestProvider); ok {
		m := mp.Manifest()
		c.mu.Lock()
		c.manifest = m
		c.mu.Unlock()
		res.Manifest = wire.FromManifest(m)
	}
	return res, nil
}

// RegisterTool implements host.Host.
func (c *child) RegisterTool(_ string, def sdk.ToolDef, h sdk.RawToolHandler) error {
	c.mu.Lock()
	if _, dup := c.tools[def.Name]; dup {
		c.mu.Unlock()
		return fmt.Errorf("tool %q registered twice", def.Name)
	}
	c.tools[def.Name] = h
	c.defs[def.Name] = def
	c.mu.Unlock()
	reg := wire.ToolDef{ToolDef: def, TimeoutMS: def.Timeout.Milliseconds(), HasResolveEffect: def.ResolveEffect != nil,
		DynamicDescription: def.DescriptionFunc != nil}
	if def.DescriptionFunc != nil {
		if text := def.DescriptionFunc(); text != "" {
			reg.Description = text // the fallback
		}
	}
	if err := c.conn.Call(context.Background(), wire.MethodToolsRegister, reg, nil); err != nil {
		c.mu.Lock()
		delete(c.tools, def.Name)
		delete(c.defs, def.Name)
		c.mu.Unlock()
		return err
	}
	return nil
}

// RegisterStage implements host.Host.
func (c *child) RegisterStage(_ string, stage sdk.Stage, own bool, h sdk.StageHandler) {
	c.registerStage(wire.StageRegistration{Stage: stage, OwnTools: own}, h)
}

// RegisterGuardStage registers a stage handler that refuses the message
// at the host when it cannot run (sdk.PluginSDK.RegisterGuardStage).
func (c *child) RegisterGuardStage(_ string, stage sdk.Stage, h sdk.StageHandler) {
	c.registerStage(wire.StageRegistration{Stage: stage, Guard: true}, h)
}

func (c *child) registerStage(r wire.StageRegistration, h sdk.StageHandler) {
	stage := r.Stage
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.stages[id] = h
	c.mu.Unlock()
	r.ID = id
	if err := c.conn.Call(context.Background(), wire.MethodStagesRegister, r, nil); err != nil {
		c.log.Error("stage handler not registered", "stage", stage, "err", err)
	}
}

// RegisterDecisionHook implements host.Host.
func (c *child) RegisterDecisionHook(_ string, h sdk.DecisionHook) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.hooks[id] = h
	c.mu.Unlock()
	if err := c.conn.Call(context.Background(), wire.MethodHooksRegister, wire.HookRegistration{ID: id}, nil); err != nil {
		c.log.Error("decision hook not registered", "err", err)
	}
}

// Inject implements host.Host; the host knows which plugin is calling.
func (c *child) Inject(_ string, in sdk.Injection) error {
	return injectError(c.conn.Call(context.Background(), wire.MethodInject, wire.InjectParams{Injection: in}, nil))
}

// InjectSync implements host.Host.
func (c *child) InjectSync(ctx context.Context, _ string, in sdk.Injection) (string, error) {
	var res wire.InjectSyncResult
	err := c.conn.Call(ctx, wire.MethodInjectSync, wire.InjectParams{Injection: in}, &res)
	return res.Text, injectError(err)
}

// refusedError is the host's refusal of an injection; it matches
// sdk.ErrInjectRefused.
type refusedError struct{ msg string }

func (e *refusedError) Error() string        { return e.msg }
func (e *refusedError) Is(target error) bool { return target == sdk.ErrInjectRefused }

func injectError(err error) error {
	var e *wire.Error
	if errors.As(err, &e) && e.Code == wire.CodeCapability {
		return &refusedError{e.Message}
	}
	return err
}

// Services implements host.Host: settings, the key-value storage, memory,
// the knowledge base and the LLM sources over the wire (the host refuses
// each group plugin.json does not declare), the plugin's data directory,
// and logs to stderr.
func (c *child) Services(plugin string) host.Services {
	c.mu.Lock()
	p := c.params
	c.mu.Unlock()
	log := c.log.With("plugin", plugin)
	mem := remoteMemory{c.conn, log, c.token}
	return host.Services{
		Settings:   remoteSettings{conn: c.conn, dir: p.DataDir, log: log},
		KV:         remoteKV{c.conn},
		Memory:     mem,
		TextMemory: mem,
		DocMemory:  mem,
		Knowledge:  remoteKnowledge{c.conn, c.token},
		LLM:        remoteLLM{c.conn},
		Logger:     log,
	}
}

type remoteLLM struct{ conn *wire.Conn }

func (r remoteLLM) ListSources() []string {
	var out []string
	_ = r.conn.Call(context.Background(), wire.MethodLLMList, struct{}{}, &out)
	return out
}

func (r remoteLLM) SetSource(name string) error {
	return r.conn.Call(context.Background(), wire.MethodLLMSet, wire.SourceParams{Name: name}, nil)
}

func (r remoteLLM) CurrentSource() string {
	var out string
	_ = r.conn.Call(context.Background(), wire.MethodLLMCurrent, struct{}{}, &out)
	return out
}

// progressNotifier is a call's ToolContext.Progress: each report is a
// "tool.progress" notification carrying the host's token for the call.
// A report that cannot be sent (the host is gone) is dropped.
func progressNotifier(conn *wire.Conn, token int64) func(done, total float64, message string) {
	return func(done, total float64, message string) {
		_ = conn.Notify(wire.MethodToolProgress, wire.ToolProgressParams{Token: token, Done: done, Total: total, Message: message})
	}
}

func (c *child) toolCall(ctx context.Context, raw json.RawMessage) (any, error) {
	var p wire.ToolCallParams
	if err := codec.Unmarshal(raw, &p); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	c.mu.Lock()
	h, cleaner := c.tools[p.Tool], c.defs[p.Tool].Cleaner
	c.mu.Unlock()
	if h == nil {
		return nil, &wire.Error{Code: wire.CodeNotRegistered, Message: "unknown tool " + p.Tool}
	}
	var res *wire.ToolCallResult
	var err error
	c.inCall(p.CallToken, func() { res, err = c.runTool(ctx, h, p) }) // calltoken.go
	if err != nil {
		return nil, err
	}
	if cleaner != nil {
		res.MemoryText = clean(cleaner, res)
	}
	return res, nil
}

// clean runs a tool's Cleaner on the text the model reads (the string, or
// the JSON of a value, as the host encodes it); a Cleaner that panics
// leaves the text as it is.
func clean(cleaner func(string) string, res *wire.ToolCallResult) (out *string) {
	text := string(res.Value)
	if res.Text != nil {
		text = *res.Text
	}
	defer func() {
		if recover() != nil {
			out = &text
		}
	}()
	cleaned := cleaner(text)
	return &cleaned
}

// runTool runs one call of h and encodes its value for the wire.
func (c *child) runTool(ctx context.Context, h sdk.RawToolHandler, p wire.ToolCallParams) (*wire.ToolCallResult, error) {
	// The decoded map is left nil: handlers that want it decode the raw
	// arguments (sdk's adapters do), typed ones decode into their struct.
	if len(p.Args) == 0 {
		p.Args = json.RawMessage("{}")
	}
	tc := p.Context.ToolContext()
	tc.KV = remoteKV{c.conn}
	if p.ProgressToken != 0 {
		tc.Progress = progressNotifier(c.conn, p.ProgressToken)
	}
	v, err := h(ctx, tc, nil, p.Args)
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeToolFailed, Message: err.Error()}
	}
	inner := v
	if w, ok := v.(interface{ ResultValue() any }); ok {
		inner = w.ResultValue()
	}
	res, werr := encodeValue(inner)
	if werr != nil {
		return nil, werr
	}
	res.Images = wireImages(v)
	if n, ok := v.(interface{ ResultNote() string }); ok {
		res.Note = n.ResultNote()
	}
	return res, nil
}

// encodeValue encodes a handler's value for the wire.
func encodeValue(v any) (*wire.ToolCallResult, *wire.Error) {
	if s, ok := v.(string); ok {
		return &wire.ToolCallResult{Text: &s}, nil
	}
	if tr, ok := v.(interface {
		Text() string
		IsError() bool
		ResultMetadata() map[string]string
	}); ok {
		s := tr.Text()
		return &wire.ToolCallResult{Text: &s, IsError: tr.IsError(), Metadata: tr.ResultMetadata()}, nil
	}
	// The handler's value is encoded as an in-process tool's is, by
	// encoding/json, so a tool answers the model alike either way.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeToolFailed, Message: "the result could not be encoded as JSON: " + err.Error()}
	}
	res := &wire.ToolCallResult{Value: b} // a pointer: the codec encodes it without a copy
	switch x := v.(type) {
	case map[string]any:
		res.IsError, _ = x["isError"].(bool)
	case interface{ IsError() bool }:
		res.IsError = x.IsError()
	}
	return res, nil
}

func (c *child) stageRun(_ context.Context, raw json.RawMessage) (any, error) {
	var p wire.StageRunParams
	if err := codec.Unmarshal(raw, &p); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	c.mu.Lock()
	h := c.stages[p.ID]
	c.mu.Unlock()
	if h == nil {
		return nil, &wire.Error{Code: wire.CodeNotRegistered, Message: fmt.Sprintf("unknown stage handler %d", p.ID)}
	}
	sc := &sdk.StageContext{}
	p.Context.ApplyTo(sc)
	sc.Phase = p.Context.Phase
	var res wire.StageRunResult
	c.inCall(p.CallToken, func() {
		defer func() {
			if r := recover(); r != nil {
				res.Error = fmt.Sprintf("panic: %v", r)
			}
		}()
		if err := h(sc); err != nil {
			res.Error = err.Error()
		}
	})
	res.Context = wire.FromStage(sc)
	return res, nil
}

func (c *child) hookDecide(ctx context.Context, raw json.RawMessage) (any, error) {
	var p wire.HookDecideParams
	if err := codec.Unmarshal(raw, &p); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	c.mu.Lock()
	h := c.hooks[p.ID]
	c.mu.Unlock()
	if h == nil {
		return nil, &wire.Error{Code: wire.CodeNotRegistered, Message: fmt.Sprintf("unknown decision hook %d", p.ID)}
	}
	var args map[string]any
	if err := codec.Unmarshal(p.Args, &args); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	if args == nil {
		args = map[string]any{}
	}
	var d sdk.HookDecision
	var err error
	c.inCall(p.CallToken, func() { d, err = h(ctx, p.Context.ToolContext(), p.Tool, args) })
	if err != nil {
		return nil, err
	}
	if d.Verdict == "" {
		// Compiled in, an empty verdict allows (HomeAgent's zero value);
		// on the wire the host accepts only the three verdicts.
		d.Verdict = sdk.VerdictAllow
	}
	return d, nil
}

func (c *child) resolveEffect(ctx context.Context, raw json.RawMessage) (any, error) {
	var p wire.ResolveEffectParams
	if err := codec.Unmarshal(raw, &p); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	c.mu.Lock()
	def := c.defs[p.Tool]
	c.mu.Unlock()
	fn := def.ResolveEffect
	if fn == nil {
		return nil, &wire.Error{Code: wire.CodeNotRegistered, Message: "no ResolveEffect for tool " + p.Tool}
	}
	var args map[string]any
	if err := codec.Unmarshal(p.Args, &args); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	if args == nil {
		args = map[string]any{}
	}
	a, err := fn(ctx, args)
	if err != nil {
		return nil, err
	}
	switch {
	case a.Effect == "":
		// Compiled in, an empty effect adds nothing to the declared one;
		// on the wire an effect is required.
		a.Effect = def.EffectiveEffect()
	case !a.Effect.Valid():
		a.Effect = sdk.EffectWrite // as the host does compiled in
	}
	return a, nil
}

func (c *child) context(ctx context.Context, raw json.RawMessage) (any, error) {
	var p wire.ContextParams
	if err := codec.Unmarshal(raw, &p); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	c.mu.Lock()
	fn := c.manifest.Context
	c.mu.Unlock()
	if fn == nil {
		return nil, &wire.Error{Code: wire.CodeNotRegistered, Message: "the plugin has no context function"}
	}
	var text string
	var err error
	c.inCall(p.CallToken, func() { text, err = fn(ctx, sdk.ContextInput{Query: p.Query}) })
	if err != nil {
		return nil, err
	}
	return wire.TextResult{Text: text}, nil
}

func (c *child) instructions(context.Context, json.RawMessage) (any, error) {
	c.mu.Lock()
	fn, text := c.manifest.InstructionsFunc, c.manifest.Instructions
	c.mu.Unlock()
	if fn != nil {
		text = fn()
	}
	return wire.TextResult{Text: text}, nil
}

func (c *child) shutdown(context.Context, json.RawMessage) (any, error) {
	if err := c.stop(); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// remove runs the plugin's remove handlers
// (sdk.PluginSDK.RegisterOnRemoveHandler): Hearth is uninstalling it, and
// shuts it down next.
func (c *child) remove(context.Context, json.RawMessage) (any, error) {
	c.mu.Lock()
	s := c.sdk
	c.mu.Unlock()
	if s != nil {
		host.RunOnRemoveHandlers(s)
	}
	return struct{}{}, nil
}

// stop runs the stop handlers and Stop, once.
func (c *child) stop() (err error) {
	c.mu.Lock()
	p, s := c.plugin, c.sdk
	c.plugin = nil
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("Stop panicked: %v", r)
		}
	}()
	host.RunStopHandlers(s)
	return p.Stop()
}

// wireImages returns the images of a value implementing sdk.ImageResult,
// those within toolcall's limits only (the host drops the rest anyway;
// they would only make the message longer than the wire takes).
func wireImages(v any) []wire.Image {
	ir, ok := v.(sdk.ImageResult)
	if !ok {
		return nil
	}
	var out []wire.Image
	for _, im := range ir.ResultImages() {
		if len(out) == toolcall.MaxImages {
			break
		}
		if len(im.Data) > toolcall.MaxImageBytes || len(im.URL) > toolcall.MaxImageURL || len(im.Data) == 0 && im.URL == "" {
			continue
		}
		out = append(out, wire.Image{MIMEType: im.MIMEType, Data: im.Data, URL: im.URL})
	}
	return out
}
