// Package toolcall is the one path a tool call takes, in Hearth and in
// sdktest alike: the model's arguments decoded (refusing any that are
// not one JSON object, too large, or that name a key twice), validated
// against the tool's JSON Schema, the handler run with a deadline (a
// panic, an error, a timeout and cancellation all become error results
// the model can read), and its value encoded for the model.
//
// Plugin authors do not need it: Hearth runs their tools through it, and
// sdk/sdktest does in their tests. Hearth's registry (which names tools
// and keeps them) and its policy sit around it.
package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/guard"
)

// DefaultTimeout bounds a tool call whose tool sets no timeout.
const DefaultTimeout = 30 * time.Second

// Size limits of one tool call. Arguments over the limit are refused
// before the handler runs; a result over it is replaced by an error result
// naming the limit, so the model can ask for less.
const (
	MaxArgumentBytes = 1 << 20
	MaxResultBytes   = 1 << 20
)

// Errors a Result's Err wraps; callers branch on them.
var (
	// ErrInvalidArguments wraps every argument decoding and validation
	// failure.
	ErrInvalidArguments = errors.New("invalid arguments")
	// ErrTimeout is the cause of a call that ran past its deadline.
	ErrTimeout = errors.New("tool call timed out")
	// ErrPanic is the cause of a call whose handler panicked.
	ErrPanic = errors.New("tool handler panicked")
	// ErrTooLarge is the cause of a call whose arguments or result are
	// over their size limit.
	ErrTooLarge = errors.New("over the size limit")
)

// Tool is what a call needs of a tool.
type Tool struct {
	// Name is the name the model knows the tool by, for messages.
	Name string
	// Params is the compiled parameter schema; nil accepts any object.
	Params *Schema
	// Timeout bounds a call; zero or less means DefaultTimeout.
	Timeout time.Duration
	// Handler runs the call.
	Handler sdk.RawToolHandler
	// Prompt says Handler returns soon after its context ends, as a call
	// over a plugin connection does (the connection gives up when its
	// context ends, whatever the plugin does). Invoke then runs it on the
	// caller's goroutine (guard.CallInline) instead of a new one
	// (guard.Call): the same deadline, cancellation and panic handling,
	// without the hand-off that is most of the cost of a quick call to a
	// child plugin. Leave it false for a handler that may ignore its
	// context: only a new goroutine lets the caller give up on it.
	Prompt bool
	// Bind, when set, runs on the goroutine Handler runs on, just before
	// it, and the function it returns just after: that goroutine is one
	// Invoke starts for this call alone, and ends with it (Prompt is then
	// not used), so what Bind ties to it is the call's only, and the
	// goroutines the handler starts inherit it (the kernel binds the
	// call's conversation for HomeAgent's context-free memory API).
	Bind func(context.Context) (unbind func())
}

// Result is the outcome of one tool call.
type Result struct {
	// Content is what the model receives: the handler's value encoded as
	// JSON (a string result is passed as is).
	Content string
	// IsError marks a result the model should treat as a failure.
	IsError bool
	// Value is the handler's return value, or the error text, for stage
	// handlers.
	Value any
	// Err is the host-side cause of an error result (invalid arguments,
	// timeout, panic, handler error), for logs and audit.
	Err error
	// Duration is how long the handler ran.
	Duration time.Duration
	// Metadata is for renderers (a diff, a kind); the model does not see
	// it.
	Metadata map[string]string
	// Images are the pictures the handler's value carried (sdk.ImageResult),
	// at most MaxImages of at most MaxImageBytes each; the host passes them
	// to a model that accepts images.
	Images []sdk.Image
	// MemoryText, when not nil, is the text memory computation uses in
	// place of Content: a child plugin's ToolDef.Cleaner output, sent with
	// the result (see MemoryTexter).
	MemoryText *string
}

// ErrorResult returns an error result whose content is {"error": msg}.
func ErrorResult(cause error, msg string) Result {
	b, _ := json.Marshal(map[string]any{"error": msg})
	return Result{Content: string(b), IsError: true, Value: msg, Err: cause}
}

// Call runs the whole path for one call with the model's argument text:
// DecodeArguments, Validate, then Invoke. Invalid arguments never reach
// the handler; they come back as an error result naming the problem.
func (t *Tool) Call(ctx context.Context, tc *sdk.ToolContext, raw json.RawMessage) Result {
	args, raw, err := DecodeArguments(raw)
	if err != nil {
		return ErrorResult(err, err.Error())
	}
	if err := t.Validate(args); err != nil {
		return ErrorResult(err, err.Error())
	}
	return t.Invoke(ctx, tc, args, raw)
}

// Validate checks args against the tool's schema. The error wraps
// ErrInvalidArguments and names the offending field.
func (t *Tool) Validate(args map[string]any) error {
	if t.Params == nil {
		return nil
	}
	if err := t.Params.Validate(args); err != nil {
		return fmt.Errorf("%w for %s: %s", ErrInvalidArguments, t.Name, err)
	}
	return nil
}

// Invoke runs the handler on arguments already validated (args, and raw,
// their text) with the tool's deadline, through guard.Call (or
// guard.CallInline for a Prompt handler). It never
// returns without a result: a handler error, a panic, a timeout and
// cancellation all become error results. The handler's goroutine ends
// when it returns; the caller does not wait past the deadline for one
// that ignores its context.
func (t *Tool) Invoke(ctx context.Context, tc *sdk.ToolContext, args map[string]any, raw json.RawMessage) Result {
	if err := argumentsTooLarge(len(raw)); err != nil {
		return ErrorResult(err, err.Error())
	}
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	start := time.Now()
	call := guard.Call[any]
	if t.Prompt && t.Bind == nil {
		call = guard.CallInline[any]
	}
	v, err := call(ctx, timeout, func(ctx context.Context) (any, error) {
		if t.Bind != nil {
			defer t.Bind(ctx)()
		}
		defer func() {
			if p := recover(); p != nil {
				slog.Error("tool handler panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
				panic(p) // guard.Call turns it into ErrPanic
			}
		}()
		v, err := t.Handler(ctx, tc, args, raw)
		if err != nil && ctx.Err() != nil {
			// Failed because its context ended: report that, not
			// whatever the handler made of it.
			return nil, &ended{ctx.Err()}
		}
		return v, err
	})
	var r Result
	var e *ended
	switch {
	case err == nil:
		r = Encode(v)
	case errors.Is(err, guard.ErrPanic):
		r = ErrorResult(fmt.Errorf("%w: %w", ErrPanic, err), fmt.Sprintf("tool %s failed: internal error in the tool", t.Name))
	case errors.Is(err, guard.ErrTimeout), errors.As(err, &e) && errors.Is(e.err, context.DeadlineExceeded):
		r = ErrorResult(ErrTimeout, fmt.Sprintf("tool %s timed out after %s", t.Name, timeout))
	case errors.As(err, &e), ctx.Err() != nil && errors.Is(err, ctx.Err()):
		// Cancelled while running, or before it started.
		r = ErrorResult(ctx.Err(), fmt.Sprintf("tool %s was cancelled", t.Name))
	default:
		r = ErrorResult(err, err.Error())
	}
	r.Duration = time.Since(start)
	return r
}

// ended is a handler's failure once its context had ended.
type ended struct{ err error }

func (e *ended) Error() string { return e.err.Error() }
func (e *ended) Unwrap() error { return e.err }

// errorReporter is implemented by result types that carry their own error
// flag (xbot's ToolResult, for one).
type errorReporter interface{ IsError() bool }

// textResult is implemented by result types whose content for the model is
// text, with metadata for renderers (xbot's ToolResult).
type textResult interface {
	errorReporter
	Text() string
	ResultMetadata() map[string]string
}

// MemoryTexter is implemented by a result that carries the text memory
// computation uses (a child plugin's result, cleaned by its
// ToolDef.Cleaner on its side); ok false means it carries none.
type MemoryTexter interface {
	MemoryText() (text string, ok bool)
}

// ValidJSON is a handler's result that is JSON already checked (a child
// plugin's, which its connection checked whole): Encode passes it as is.
type ValidJSON []byte

// MarshalJSON returns v itself, so a ValidJSON value handed on (to a
// child's after_toolcall handler over the wire) stays JSON rather than
// becoming a base64 string.
func (v ValidJSON) MarshalJSON() ([]byte, error) {
	if len(v) == 0 {
		return []byte("null"), nil
	}
	return v, nil
}

// Encode turns a handler's value into a result. A string is passed as is;
// valid JSON bytes are passed as is; everything else is JSON-encoded. A map
// with "isError": true, or a value whose IsError method says so, is an error
// result. A result over MaxResultBytes becomes an error result saying so.
//
// A value implementing sdk.ImageResult has its images collected into
// Images (see images.go), within MaxImages and MaxImageBytes.
//
// A value with a ResultValue method (sdk.WithImages) is encoded as the
// value it returns, with its own images and note (ResultNote) added.
func Encode(v any) Result {
	inner := v
	if w, ok := v.(interface{ ResultValue() any }); ok {
		inner = w.ResultValue()
	}
	r := encode(inner)
	if n, ok := v.(interface{ ResultNote() string }); ok && n.ResultNote() != "" {
		r.Content += "\n" + n.ResultNote()
	}
	// Stage handlers see the value the result reads as; a wrapper's own
	// fields are unexported and would cross the wire as {} (a child's
	// after_toolcall would then seem to replace the result, images and
	// all). The images are kept in r.Images below.
	r.Value = inner
	if n := len(r.Content); n > MaxResultBytes {
		err := fmt.Errorf("%w: the tool's result is %d bytes, over the limit of %d bytes (1 MiB)", ErrTooLarge, n, MaxResultBytes)
		return ErrorResult(err, err.Error()+"; ask for less (a smaller range, a filter, one page at a time)")
	}
	if m, ok := inner.(MemoryTexter); ok {
		if text, ok := m.MemoryText(); ok {
			r.MemoryText = &text
		}
	}
	if ir, ok := v.(sdk.ImageResult); ok {
		var note string
		r.Images, note = collectImages(ir.ResultImages())
		if note != "" {
			r.Content += "\n" + note
		}
	}
	return r
}

func encode(v any) Result {
	r := Result{Value: v}
	switch x := v.(type) {
	case textResult:
		r.Content, r.IsError, r.Metadata = x.Text(), x.IsError(), x.ResultMetadata()
		if r.Content == "" {
			r.Content = "(no output)"
		}
		return r
	case nil:
		r.Content = "null"
		return r
	case string:
		r.Content = x
		return r
	case ValidJSON:
		r.Content = string(x)
		return r
	case json.RawMessage:
		if json.Valid(x) {
			r.Content = string(x)
			return r
		}
	case []byte:
		if json.Valid(x) {
			r.Content = string(x)
			return r
		}
	case map[string]any:
		if b, ok := x["isError"].(bool); ok && b {
			r.IsError = true
		}
	case errorReporter:
		r.IsError = x.IsError()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ErrorResult(err, fmt.Sprintf("the tool's result could not be encoded as JSON: %v", err))
	}
	r.Content = string(b)
	return r
}
