package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/deadline"
	"github.com/hearth-agent/hearth/internal/jsonwire"
	"github.com/hearth-agent/hearth/sdk"
)

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
}

// ErrInvalidArguments wraps every argument validation failure.
var ErrInvalidArguments = errors.New("invalid arguments")

// ErrTimeout is the cause of a call that ran past its deadline.
var ErrTimeout = errors.New("tool call timed out")

// ErrPanic is the cause of a call whose handler panicked.
var ErrPanic = errors.New("tool handler panicked")

// ErrTooLarge is the cause of a call whose arguments or result are over
// their size limit.
var ErrTooLarge = errors.New("over the size limit")

// Size limits of one tool call. Arguments over the limit are refused
// before the handler runs; a result over it is replaced by an error result
// naming the limit, so the model can ask for less.
const (
	MaxArgumentBytes = 1 << 20
	MaxResultBytes   = 1 << 20
)

// argumentsTooLarge is the error for n bytes of arguments, or nil.
func argumentsTooLarge(n int) error {
	if n <= MaxArgumentBytes {
		return nil
	}
	return fmt.Errorf("%w: %w: the arguments are %d bytes, over the limit of %d bytes (1 MiB); "+
		"split the work into smaller calls", ErrInvalidArguments, ErrTooLarge, n, MaxArgumentBytes)
}

// ErrorResult returns an error result whose content is {"error": msg}.
func ErrorResult(cause error, msg string) Result {
	b, _ := json.Marshal(map[string]any{"error": msg})
	return Result{Content: string(b), IsError: true, Value: msg, Err: cause}
}

// DecodeArguments parses the model's argument string. Empty input means no
// arguments. Anything but a JSON object is an error naming the problem, and
// so is an object that names a key twice, at any depth: parsers disagree on
// which value counts, so the map the hooks judge and the text the tool
// reads could differ.
func DecodeArguments(raw json.RawMessage) (map[string]any, json.RawMessage, error) {
	if err := argumentsTooLarge(len(raw)); err != nil {
		return nil, nil, err
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return map[string]any{}, json.RawMessage("{}"), nil
	}
	var args map[string]any
	if err := json.Unmarshal(trimmed, &args); err != nil {
		return nil, nil, fmt.Errorf("%w: arguments are not a JSON object: %v", ErrInvalidArguments, err)
	}
	if err := duplicateKey(trimmed); err != nil {
		return nil, nil, err
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, trimmed, nil
}

// Validate checks args against the tool's schema. The error names the
// offending field.
func (t *Tool) Validate(args map[string]any) error {
	if t.fast != nil && t.fast.valid(args) {
		return nil
	}
	if err := t.resolved.Validate(args); err != nil {
		return fmt.Errorf("%w for %s: %s", ErrInvalidArguments, t.Name, describeValidation(err))
	}
	return nil
}

// describeValidation turns the validator's message, which walks the schema
// ("validating root: validating /properties/a: validating
// /properties/a/properties/b: minimum: ..."), into one naming the field
// ("field \"a.b\": minimum: ...").
func describeValidation(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "validating "); i >= 0 {
		msg = msg[i+len("validating "):]
	}
	if strings.HasPrefix(msg, "root: ") {
		return strings.TrimPrefix(msg, "root: ")
	}
	path, rest, ok := strings.Cut(msg, ": ")
	if !ok || !strings.HasPrefix(path, "/") {
		return msg
	}
	var fields []string
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties", "patternProperties":
			if i+1 < len(segs) {
				fields = append(fields, segs[i+1])
				i++
			}
		case "items", "prefixItems":
			fields = append(fields, "[]")
		}
	}
	if len(fields) == 0 {
		return msg
	}
	return fmt.Sprintf("field %q: %s", strings.ReplaceAll(strings.Join(fields, "."), ".[]", "[]"), rest)
}

// Invoke runs the handler with the tool's deadline. It never returns
// without a result: a handler error, a panic, a timeout and cancellation
// all become error results. A context-aware handler's goroutine ends when
// its context is done; a context-free one runs until it returns, but the
// caller does not wait for it.
func (t *Tool) Invoke(ctx context.Context, tc *sdk.ToolContext, args map[string]any, raw json.RawMessage) Result {
	if err := argumentsTooLarge(len(raw)); err != nil {
		return ErrorResult(err, err.Error())
	}
	if t.Direct {
		ctx, cancel := directDeadlines.WithTimeout(ctx, t.Timeout)
		defer cancel()
		return t.invokeDirect(ctx, tc, args, raw)
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()

	type outcome struct {
		v   any
		err error
	}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		defer func() {
			if p := recover(); p != nil {
				slog.Error("tool handler panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
				done <- outcome{err: fmt.Errorf("%w: %v", ErrPanic, p)}
			}
		}()
		v, err := t.Handler(ctx, tc, args, raw)
		done <- outcome{v, err}
	}()

	select {
	case o := <-done:
		d := time.Since(start)
		if o.err != nil {
			r := ErrorResult(o.err, o.err.Error())
			if errors.Is(o.err, ErrPanic) {
				r = ErrorResult(o.err, fmt.Sprintf("tool %s failed: internal error in the tool", t.Name))
			}
			r.Duration = d
			return r
		}
		r := Encode(o.v)
		r.Duration = d
		return r
	case <-ctx.Done():
		d := time.Since(start)
		var r Result
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			r = ErrorResult(ErrTimeout, fmt.Sprintf("tool %s timed out after %s", t.Name, t.Timeout))
		} else {
			r = ErrorResult(ctx.Err(), fmt.Sprintf("tool %s was cancelled", t.Name))
		}
		r.Duration = d
		return r
	}
}

// directDeadlines times the calls of Direct handlers (Hearth's own, which
// forward to a child process) without a runtime timer per call.
var directDeadlines deadline.Sweeper

// invokeDirect calls a Direct handler on this goroutine; it must return
// once ctx ends.
func (t *Tool) invokeDirect(ctx context.Context, tc *sdk.ToolContext, args map[string]any, raw json.RawMessage) (r Result) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			slog.Error("tool handler panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
			r = ErrorResult(fmt.Errorf("%w: %v", ErrPanic, p), fmt.Sprintf("tool %s failed: internal error in the tool", t.Name))
		}
		r.Duration = time.Since(start)
	}()
	v, err := t.Handler(ctx, tc, args, raw)
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ErrorResult(ErrTimeout, fmt.Sprintf("tool %s timed out after %s", t.Name, t.Timeout))
	case err != nil && ctx.Err() != nil:
		return ErrorResult(ctx.Err(), fmt.Sprintf("tool %s was cancelled", t.Name))
	case err != nil:
		return ErrorResult(err, err.Error())
	}
	return Encode(v)
}

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

// ValidJSON is a handler's result that is JSON already checked (a child
// plugin's, which its connection checked whole): Encode passes it as is.
type ValidJSON []byte

// Encode turns a handler's value into a result. A string is passed as is;
// valid JSON bytes are passed as is; everything else is JSON-encoded. A map
// with "isError": true, or a value whose IsError method says so, is an error
// result. A result over MaxResultBytes becomes an error result saying so.
func Encode(v any) Result {
	r := encode(v)
	if n := len(r.Content); n > MaxResultBytes {
		err := fmt.Errorf("%w: the tool's result is %d bytes, over the limit of %d bytes (1 MiB)", ErrTooLarge, n, MaxResultBytes)
		return ErrorResult(err, err.Error()+"; ask for less (a smaller range, a filter, one page at a time)")
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
		if jsonwire.Valid(x) {
			r.Content = string(x)
			return r
		}
	case []byte:
		if jsonwire.Valid(x) {
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

// Call runs the whole path for one call of the tool the model knows as
// name: lookup, argument decoding and validation, then Invoke. Invalid
// arguments never reach the handler.
func (r *Registry) Call(ctx context.Context, tc *sdk.ToolContext, name string, raw json.RawMessage) Result {
	t, ok := r.Lookup(name)
	if !ok {
		return ErrorResult(ErrUnknownTool, fmt.Sprintf("unknown tool %q", name))
	}
	if err := argumentsTooLarge(len(raw)); err != nil {
		return ErrorResult(err, err.Error())
	}
	if t.Direct && t.fast != nil {
		// A direct handler forwards the raw arguments: when they are
		// surely valid, no map is decoded.
		if trimmed := bytes.TrimSpace(raw); t.fast.validArgs(trimmed) && duplicateKey(trimmed) == nil {
			return t.Invoke(ctx, tc, nil, trimmed)
		}
	}
	args, raw, err := DecodeArguments(raw)
	if err != nil {
		return ErrorResult(err, err.Error())
	}
	if err := t.Validate(args); err != nil {
		return ErrorResult(err, err.Error())
	}
	return t.Invoke(ctx, tc, args, raw)
}
