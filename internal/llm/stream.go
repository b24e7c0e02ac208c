package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// chunk is one streamed chat.completion.chunk (or, for servers that ignore
// stream: true, a whole chat.completion: message takes the place of delta).
type chunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta        wireDelta  `json:"delta"`
		Message      *wireDelta `json:"message"`
		FinishReason string     `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
	Error *wireError `json:"error"`
}

type wireDelta struct {
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"` // vLLM and OpenRouter spell it so
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptCacheHit      int `json:"prompt_cache_hit_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type wireError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

func (u *wireUsage) usage() Usage {
	out := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	if u.PromptCacheHit > out.CachedTokens {
		out.CachedTokens = u.PromptCacheHit
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.PromptTokens + out.CompletionTokens
	}
	return out
}

// assembler builds a Response from chunks, keeping its size under a
// limit.
type assembler struct {
	resp    Response
	calls   []*callBuilder
	byIndex map[int]*callBuilder
	byID    map[string]*callBuilder
	size    int64 // bytes of text, reasoning and tool calls so far
	limit   int64

	// The answer so far, built without copying it on every piece.
	content, reasoning strings.Builder
}

type callBuilder struct {
	id, name string
	args     bytes.Buffer
}

// callOverhead is what a tool call counts against the size limit beyond
// its name and arguments, so a stream of empty calls is bounded too.
const callOverhead = 64

func newAssembler(limit int64) *assembler {
	return &assembler{byIndex: map[int]*callBuilder{}, byID: map[string]*callBuilder{}, limit: limit}
}

// add folds one chunk in and returns the text delta it carried. Going over
// the size limit is an error wrapping ErrTooLarge.
func (a *assembler) add(c *chunk) (Delta, error) {
	var d Delta
	if c.Model != "" {
		a.resp.Model = c.Model
	}
	if c.Usage != nil {
		a.resp.Usage = c.Usage.usage()
	}
	for _, ch := range c.Choices {
		wd := ch.Delta
		if ch.Message != nil {
			wd = *ch.Message
		}
		d.Content += wd.Content
		r := wd.ReasoningContent
		if r == "" {
			r = wd.Reasoning
		}
		d.Reasoning += r
		a.size += int64(len(wd.Content) + len(r))
		for i := range wd.ToolCalls {
			if ch.Message != nil {
				// A whole message lists each call once: two entries are
				// two calls, whatever their ids and indexes say.
				a.newCall(&wd.ToolCalls[i])
				continue
			}
			a.addToolCall(&wd.ToolCalls[i])
		}
		if ch.FinishReason != "" {
			a.resp.FinishReason = ch.FinishReason
		}
		if a.limit > 0 && a.size > a.limit {
			return Delta{}, fmt.Errorf("%w: over %s (the limit, max_response_bytes)", ErrTooLarge, byteSize(a.limit))
		}
	}
	a.content.WriteString(d.Content)
	a.reasoning.WriteString(d.Reasoning)
	return d, nil
}

// addToolCall merges one tool call delta. Providers disagree on indexes:
// some omit them, some send every call with index 0 and a new id. A delta
// continues the call with the same id; failing that, the call at the same
// index unless the ids conflict; failing that, with neither id nor index,
// the last call. Anything else starts a new call.
func (a *assembler) addToolCall(tc *toolCallDelta) {
	var b *callBuilder
	if tc.ID != "" {
		b = a.byID[tc.ID]
	}
	if b == nil && tc.Index != nil {
		if x, ok := a.byIndex[*tc.Index]; ok && (tc.ID == "" || x.id == "") {
			b = x
		}
	}
	if b == nil && tc.ID == "" && tc.Index == nil && len(a.calls) > 0 {
		b = a.calls[len(a.calls)-1]
	}
	if b == nil {
		a.newCall(tc)
		return
	}
	a.merge(b, tc)
}

// newCall starts a call with tc.
func (a *assembler) newCall(tc *toolCallDelta) {
	b := &callBuilder{}
	a.calls = append(a.calls, b)
	a.size += callOverhead
	a.merge(b, tc)
}

// merge folds tc into the call b.
func (a *assembler) merge(b *callBuilder, tc *toolCallDelta) {
	if tc.Index != nil {
		a.byIndex[*tc.Index] = b
	}
	if tc.ID != "" && b.id == "" {
		b.id = tc.ID
		if _, taken := a.byID[tc.ID]; !taken {
			a.byID[tc.ID] = b
		}
		a.size += int64(len(tc.ID))
	}
	if n := tc.Function.Name; n != "" && n != b.name {
		b.name += n
		a.size += int64(len(n))
	}
	b.args.WriteString(tc.Function.Arguments)
	a.size += int64(len(tc.Function.Arguments))
}

// finish returns the answer. Every tool call in it has an id of its own:
// a call without one, or with the id of a call before it, is given a
// fresh one (call_<n>, never one the answer uses), so that each result
// answers exactly one call and nothing downstream can mistake one call for
// another.
func (a *assembler) finish() *Response {
	a.resp.Content, a.resp.Reasoning = a.content.String(), a.reasoning.String()
	a.resp.ToolCalls = nil
	used := make(map[string]bool, len(a.calls))
	for _, b := range a.calls {
		if b.name != "" || b.args.Len() > 0 {
			used[b.id] = true
		}
	}
	seen := make(map[string]bool, len(a.calls))
	n := 0
	for _, b := range a.calls {
		if b.name == "" && b.args.Len() == 0 {
			continue
		}
		id := b.id
		if id == "" || seen[id] {
			for {
				id = "call_" + strconv.Itoa(n)
				n++
				if !used[id] && !seen[id] {
					break
				}
			}
		}
		seen[id] = true
		a.resp.ToolCalls = append(a.resp.ToolCalls, ToolCall{
			ID: id, Type: "function",
			Function: FunctionCall{Name: b.name, Arguments: b.args.String()},
		})
	}
	return &a.resp
}

// Errors of reading the wire, turned into the exported ones by decoder.
var (
	errStreamEnded = errors.New("stream ended") // the [DONE] sentinel
	errLineTooLong = errors.New("line too long")
	errWireLimit   = errors.New("too many bytes")
)

// readSSE reads server-sent events from br and calls fn with the data of
// each event; an event's data lines are joined with newlines, per the SSE
// specification. A line or an event longer than maxLine is errLineTooLong,
// so memory stays bounded whatever the server sends. Errors of fn are
// returned as they are; a last line cut off by the end of the input is
// io.ErrUnexpectedEOF when fn cannot read it.
func readSSE(br *bufio.Reader, maxLine int, fn func(data []byte) error) error {
	var data, line bytes.Buffer
	flush := func() error {
		if data.Len() == 0 {
			return nil
		}
		b := data.Bytes()
		data.Reset()
		if bytes.Equal(bytes.TrimSpace(b), []byte("[DONE]")) {
			return errStreamEnded
		}
		return fn(b)
	}
	for {
		line.Reset()
		var err error
		for {
			var frag []byte
			frag, err = br.ReadSlice('\n')
			if line.Len()+len(frag) > maxLine {
				return errLineTooLong
			}
			line.Write(frag)
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		complete := bytes.HasSuffix(line.Bytes(), []byte("\n"))
		if l := bytes.TrimRight(line.Bytes(), "\r\n"); len(l) > 0 || complete {
			switch {
			case len(l) == 0:
				if ferr := flush(); ferr != nil {
					return ferr
				}
			case l[0] == ':':
				// comment, e.g. keep-alive
			default:
				field, value, _ := bytes.Cut(l, []byte(":"))
				value = bytes.TrimPrefix(value, []byte(" "))
				if string(field) == "data" {
					if data.Len()+len(value)+1 > maxLine {
						return errLineTooLong
					}
					if data.Len() > 0 {
						data.WriteByte('\n')
					}
					data.Write(value)
				}
			}
		}
		if err == io.EOF {
			ferr := flush()
			if !complete && errors.Is(ferr, ErrMalformed) {
				return io.ErrUnexpectedEOF
			}
			return ferr
		}
		if err != nil {
			return err
		}
	}
}

// decoder reads one answer, as a stream or a whole JSON document.
type decoder struct {
	limit   int64 // MaxResponseBytes
	maxLine int   // the longest line, event or JSON document read
	onDelta func(Delta)
	onEvent func() // called for each streamed event that parses
	redact  func(string) string
}

// stream reads a streamed answer, calling onDelta for text. The answer is
// complete when a finish_reason or [DONE] arrived; otherwise the partial
// answer is returned with an error wrapping ErrIncomplete.
func (d *decoder) stream(br *bufio.Reader) (*Response, error) {
	a := newAssembler(d.limit)
	events := 0
	err := readSSE(br, d.maxLine, func(data []byte) error {
		events++
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("%w: stream event %q: %v", ErrMalformed, truncate([]byte(d.redact(string(data))), 200), err)
		}
		if c.Error != nil {
			return &APIError{Message: d.redact(c.Error.Message), Type: c.Error.Type}
		}
		if d.onEvent != nil {
			d.onEvent()
		}
		delta, err := a.add(&c)
		if err != nil {
			return err
		}
		if d.onDelta != nil && (delta.Content != "" || delta.Reasoning != "") {
			d.onDelta(delta)
		}
		return nil
	})
	done := errors.Is(err, errStreamEnded)
	switch {
	case done || err == nil:
	case errors.Is(err, errLineTooLong), errors.Is(err, errWireLimit):
		return a.finish(), fmt.Errorf("%w: over %s (the limit, max_response_bytes)", ErrTooLarge, byteSize(d.limit))
	case errors.Is(err, ErrMalformed), errors.Is(err, ErrTooLarge):
		return a.finish(), err
	case errors.As(err, new(*APIError)):
		return a.finish(), err
	default: // the connection broke, or the request was cancelled
		return a.finish(), fmt.Errorf("%w: the connection broke during the answer: %w", ErrIncomplete, err)
	}
	resp := a.finish()
	if !done && resp.FinishReason == "" {
		if events == 0 {
			return resp, fmt.Errorf("%w: the provider closed the connection without answering", ErrIncomplete)
		}
		return resp, fmt.Errorf("%w: the stream ended before the provider finished the answer", ErrIncomplete)
	}
	return resp, checkEmpty(resp)
}

// whole reads a non-streamed chat.completion.
func (d *decoder) whole(r io.Reader) (*Response, error) {
	lr := &io.LimitedReader{R: r, N: int64(d.maxLine) + 1}
	var c chunk
	if err := json.NewDecoder(lr).Decode(&c); err != nil {
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
	if c.Error != nil {
		return nil, &APIError{Message: d.redact(c.Error.Message), Type: c.Error.Type}
	}
	a := newAssembler(d.limit)
	delta, err := a.add(&c)
	if err != nil {
		return nil, err
	}
	if d.onDelta != nil && (delta.Content != "" || delta.Reasoning != "") {
		d.onDelta(delta)
	}
	resp := a.finish()
	return resp, checkEmpty(resp)
}

// checkEmpty refuses a finished answer with neither text nor tool calls.
func checkEmpty(resp *Response) error {
	if strings.TrimSpace(resp.Content) != "" || len(resp.ToolCalls) > 0 {
		return nil
	}
	if resp.FinishReason != "" && resp.FinishReason != "stop" {
		return fmt.Errorf("%w (finish reason %q)", ErrEmptyAnswer, resp.FinishReason)
	}
	return ErrEmptyAnswer
}

// lineLimit is the longest line, event or JSON document read for a size
// limit: the limit twice over, for JSON escapes, and room for the
// envelope.
func lineLimit(limit int64) int {
	return int(min(2*limit+64<<10, 1<<30))
}

// wireLimit caps the bytes read for one answer, keep-alives and envelopes
// included, so a server that streams forever without saying anything is
// still stopped.
func wireLimit(limit int64) int64 {
	return max(64*limit, 64<<20)
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "..."
}
