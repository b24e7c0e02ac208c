package llm

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// StatusOverloaded is the status Anthropic answers with when its servers
// are overloaded; it is retried like a 503.
const StatusOverloaded = 529

// anthEvent is one event of the Messages API's stream, or (Message set,
// Type "message") a whole non-streamed answer.
type anthEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Model string     `json:"model"`
		Usage *anthUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *anthBlock `json:"content_block"`
	// Delta is a value, not a pointer: it is in most events, and a
	// pointer would cost an allocation each.
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthUsage `json:"usage"`
	Error *wireError `json:"error"`

	// A whole answer's fields.
	Model      string      `json:"model"`
	Content    []anthBlock `json:"content"`
	StopReason string      `json:"stop_reason"`
}

type anthBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

type anthUsage struct {
	InputTokens         *int `json:"input_tokens"`
	OutputTokens        *int `json:"output_tokens"`
	CacheCreationTokens *int `json:"cache_creation_input_tokens"`
	CacheReadTokens     *int `json:"cache_read_input_tokens"`
}

// merge takes the counts u gives: message_start gives all of them,
// message_delta the final output count (and, on newer servers, the
// others again).
func (u *anthUsage) merge(v *anthUsage) {
	if v == nil {
		return
	}
	for _, p := range []struct{ dst, src **int }{
		{&u.InputTokens, &v.InputTokens}, {&u.OutputTokens, &v.OutputTokens},
		{&u.CacheCreationTokens, &v.CacheCreationTokens}, {&u.CacheReadTokens, &v.CacheReadTokens},
	} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
}

// usage maps Anthropic's counts to Hearth's: its input_tokens are only
// the tokens neither read from nor written to the cache, so the prompt
// is the three together.
func (u *anthUsage) usage() Usage {
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return max(*p, 0)
	}
	out := Usage{CachedTokens: n(u.CacheReadTokens), CacheWriteTokens: n(u.CacheCreationTokens),
		CompletionTokens: n(u.OutputTokens)}
	out.PromptTokens = n(u.InputTokens) + out.CachedTokens + out.CacheWriteTokens
	out.TotalTokens = out.PromptTokens + out.CompletionTokens
	return out
}

// stopReasons maps Anthropic's stop reasons to OpenAI's finish reasons,
// which the rest of Hearth knows.
var stopReasons = map[string]string{
	"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
	"max_tokens": "length", "refusal": "content_filter",
}

// anthErrorStatus gives an error event of the stream the HTTP status its
// type stands for, so an overload or a rate limit before any part of the
// answer is retried like the same answer given as a status.
var anthErrorStatus = map[string]int{
	"overloaded_error": StatusOverloaded, "rate_limit_error": 429, "api_error": 500,
}

// anthAssembler builds a Response from the stream's content blocks.
type anthAssembler struct {
	*assembler
	usage   anthUsage
	blocks  map[int]*anthPart
	order   []*anthPart
	stopped bool // message_stop came
}

// anthPart is one content block as it streams in.
type anthPart struct {
	typ       string
	call      *callBuilder // tool_use
	thinking  strings.Builder
	signature strings.Builder
	data      string // redacted_thinking
	inputSeen bool   // an input_json_delta came
	input     json.RawMessage
}

func newAnthAssembler(limit int64) *anthAssembler {
	return &anthAssembler{assembler: newAssembler(limit), blocks: map[int]*anthPart{}}
}

func (a *anthAssembler) tooLarge() error {
	if a.limit > 0 && a.size > a.limit {
		return fmt.Errorf("%w: over %s (the limit, max_response_bytes)", ErrTooLarge, byteSize(a.limit))
	}
	return nil
}

// start opens a content block.
func (a *anthAssembler) start(i int, b *anthBlock) (Delta, error) {
	p := &anthPart{typ: b.Type}
	a.blocks[i] = p
	a.order = append(a.order, p)
	var d Delta
	switch b.Type {
	case "text":
		d.Content = b.Text
	case "thinking":
		d.Reasoning = b.Thinking
		p.thinking.WriteString(b.Thinking)
		p.signature.WriteString(b.Signature)
	case "redacted_thinking":
		p.data = b.Data
		a.size += int64(len(b.Data))
	case "tool_use":
		a.newCall(&toolCallDelta{ID: b.ID, Function: struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		}{Name: b.Name}})
		p.call = a.calls[len(a.calls)-1]
		p.input = b.Input
	}
	a.text(d)
	return d, a.tooLarge()
}

// delta adds to a block.
func (a *anthAssembler) delta(ev *anthEvent) (Delta, error) {
	p := a.blocks[ev.Index]
	if p == nil {
		return Delta{}, fmt.Errorf("%w: a %s for content block %d, which was never started", ErrMalformed, ev.Delta.Type, ev.Index)
	}
	var d Delta
	switch ev.Delta.Type {
	case "text_delta":
		d.Content = ev.Delta.Text
	case "thinking_delta":
		d.Reasoning = ev.Delta.Thinking
		p.thinking.WriteString(ev.Delta.Thinking)
	case "signature_delta":
		p.signature.WriteString(ev.Delta.Signature)
		a.size += int64(len(ev.Delta.Signature))
	case "input_json_delta":
		if p.call == nil {
			return Delta{}, fmt.Errorf("%w: tool input for content block %d, which is a %s block", ErrMalformed, ev.Index, p.typ)
		}
		p.inputSeen = true
		p.call.args.WriteString(ev.Delta.PartialJSON)
		a.size += int64(len(ev.Delta.PartialJSON))
	}
	a.text(d)
	return d, a.tooLarge()
}

// stop closes a block: a tool call streamed no input when its start
// carried it whole (or it takes none).
func (a *anthAssembler) stop(i int) error {
	p := a.blocks[i]
	if p == nil || p.call == nil || p.inputSeen {
		return nil
	}
	in := strings.TrimSpace(string(p.input))
	if in == "" || in == "null" {
		in = "{}"
	}
	p.call.args.WriteString(in)
	a.size += int64(len(in))
	return a.tooLarge()
}

func (a *anthAssembler) text(d Delta) {
	a.content.WriteString(d.Content)
	a.reasoning.WriteString(d.Reasoning)
	a.size += int64(len(d.Content) + len(d.Reasoning))
}

// finish returns the answer, with its thinking blocks for the next call
// of the turn.
func (a *anthAssembler) finish() *Response {
	a.resp.Usage = a.usage.usage()
	resp := a.assembler.finish()
	var blocks []any
	for _, p := range a.order {
		switch p.typ {
		case "thinking":
			blocks = append(blocks, anthBlockOut{Type: "thinking", Thinking: p.thinking.String(), Signature: p.signature.String()})
		case "redacted_thinking":
			blocks = append(blocks, anthBlockOut{Type: "redacted_thinking", Data: p.data})
		}
	}
	if len(blocks) > 0 {
		resp.ThinkingBlocks, _ = json.Marshal(blocks) // plain strings always encode
	}
	return resp
}

// anthBlockOut is a thinking block as it is sent back.
type anthBlockOut struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
}

// add folds one event in.
func (a *anthAssembler) add(ev *anthEvent) (Delta, error) {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			if ev.Message.Model != "" {
				a.resp.Model = ev.Message.Model
			}
			a.usage.merge(ev.Message.Usage)
		}
	case "content_block_start":
		if ev.ContentBlock == nil {
			return Delta{}, fmt.Errorf("%w: content_block_start without a content block", ErrMalformed)
		}
		return a.start(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		if ev.Delta.Type == "" {
			return Delta{}, fmt.Errorf("%w: content_block_delta without a delta", ErrMalformed)
		}
		return a.delta(ev)
	case "content_block_stop":
		return Delta{}, a.stop(ev.Index)
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.resp.FinishReason = finishReason(ev.Delta.StopReason)
		}
		a.usage.merge(ev.Usage)
	case "message_stop":
		a.stopped = true
	}
	// ping, and event types added later, carry nothing Hearth reads.
	return Delta{}, nil
}

func finishReason(stop string) string {
	if r, ok := stopReasons[stop]; ok {
		return r
	}
	return stop
}

// anthError turns an error event or body into an *APIError.
func (d *decoder) anthError(e *wireError) *APIError {
	return &APIError{Status: anthErrorStatus[e.Type], Message: d.redact(e.Message), Type: e.Type}
}

// anthropicStream reads a streamed Messages answer, calling onDelta for
// text and thinking. The answer is complete when message_stop, or a
// stop reason, arrived; otherwise the partial answer is returned with an
// error wrapping ErrIncomplete. A ping is not progress: only events that
// carry the answer re-arm the idle timeout.
func (d *decoder) anthropicStream(br *bufio.Reader) (*Response, error) {
	a := newAnthAssembler(d.limit)
	events := 0
	var ev anthEvent // one for all events: not an allocation each
	err := readSSE(br, d.maxLine, func(data []byte) error {
		events++
		ev = anthEvent{}
		if err := json.Unmarshal(data, &ev); err != nil {
			return fmt.Errorf("%w: stream event %q: %v", ErrMalformed, truncate([]byte(d.redact(string(data))), 200), err)
		}
		if ev.Type == "error" {
			if ev.Error == nil {
				ev.Error = &wireError{Message: "an error event without an error"}
			}
			return d.anthError(ev.Error)
		}
		if ev.Type == "" {
			return fmt.Errorf("%w: stream event %q has no type", ErrMalformed, truncate([]byte(d.redact(string(data))), 200))
		}
		if ev.Type != "ping" && d.onEvent != nil {
			d.onEvent()
		}
		delta, err := a.add(&ev)
		if err != nil {
			return err
		}
		if d.onDelta != nil && (delta.Content != "" || delta.Reasoning != "") {
			d.onDelta(delta)
		}
		return nil
	})
	switch {
	case err == nil, errors.Is(err, errStreamEnded):
	case errors.Is(err, errLineTooLong), errors.Is(err, errWireLimit):
		return a.finish(), fmt.Errorf("%w: over %s (the limit, max_response_bytes)", ErrTooLarge, byteSize(d.limit))
	case errors.Is(err, ErrMalformed), errors.Is(err, ErrTooLarge), errors.As(err, new(*APIError)):
		return a.finish(), err
	default: // the connection broke, or the request was cancelled
		return a.finish(), fmt.Errorf("%w: the connection broke during the answer: %w", ErrIncomplete, err)
	}
	resp := a.finish()
	if !a.stopped && resp.FinishReason == "" {
		if events == 0 {
			return resp, fmt.Errorf("%w: the provider closed the connection without answering", ErrIncomplete)
		}
		return resp, fmt.Errorf("%w: the stream ended before the provider finished the answer (no message_stop)", ErrIncomplete)
	}
	return resp, checkEmpty(resp)
}

// anthropicWhole reads a non-streamed Messages answer, from a server
// that ignores "stream": true.
func (d *decoder) anthropicWhole(r io.Reader) (*Response, error) {
	lr := &io.LimitedReader{R: r, N: int64(d.maxLine) + 1}
	var ev anthEvent
	if err := json.NewDecoder(lr).Decode(&ev); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case lr.N <= 0 || errors.Is(err, errWireLimit):
			return nil, fmt.Errorf("%w: over %s (the limit, max_response_bytes)", ErrTooLarge, byteSize(d.limit))
		case errors.As(err, &syn), errors.As(err, &typ):
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		case errors.Is(err, io.EOF):
			return nil, fmt.Errorf("%w: the provider closed the connection without answering", ErrIncomplete)
		default:
			return nil, fmt.Errorf("%w: the connection broke during the answer: %w", ErrIncomplete, err)
		}
	}
	if ev.Error != nil {
		return nil, d.anthError(ev.Error)
	}
	if ev.Type != "message" {
		return nil, fmt.Errorf("%w: a JSON answer of type %q, not a message", ErrMalformed, ev.Type)
	}
	a := newAnthAssembler(d.limit)
	a.resp.Model = ev.Model
	a.usage.merge(ev.Usage)
	var all Delta
	for i := range ev.Content {
		delta, err := a.start(i, &ev.Content[i])
		if err != nil {
			return nil, err
		}
		if err := a.stop(i); err != nil {
			return nil, err
		}
		all.Content += delta.Content
		all.Reasoning += delta.Reasoning
	}
	a.resp.FinishReason = finishReason(ev.StopReason)
	if d.onDelta != nil && (all.Content != "" || all.Reasoning != "") {
		d.onDelta(all)
	}
	resp := a.finish()
	return resp, checkEmpty(resp)
}
