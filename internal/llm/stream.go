package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
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
	if u.PromptCacheHit > out.CachedTokens {
		out.CachedTokens = u.PromptCacheHit
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.PromptTokens + out.CompletionTokens
	}
	return out
}

// assembler builds a Response from chunks.
type assembler struct {
	resp    Response
	calls   []*callBuilder
	byIndex map[int]*callBuilder
	byID    map[string]*callBuilder
}

type callBuilder struct {
	id, name string
	args     bytes.Buffer
}

func newAssembler() *assembler {
	return &assembler{byIndex: map[int]*callBuilder{}, byID: map[string]*callBuilder{}}
}

// add folds one chunk in and returns the text delta it carried.
func (a *assembler) add(c *chunk) Delta {
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
		for i := range wd.ToolCalls {
			a.addToolCall(&wd.ToolCalls[i])
		}
		if ch.FinishReason != "" {
			a.resp.FinishReason = ch.FinishReason
		}
	}
	a.resp.Content += d.Content
	a.resp.Reasoning += d.Reasoning
	return d
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
		b = &callBuilder{}
		a.calls = append(a.calls, b)
	}
	if tc.Index != nil {
		a.byIndex[*tc.Index] = b
	}
	if tc.ID != "" && b.id == "" {
		b.id = tc.ID
		a.byID[tc.ID] = b
	}
	if n := tc.Function.Name; n != "" && n != b.name {
		b.name += n
	}
	b.args.WriteString(tc.Function.Arguments)
}

func (a *assembler) finish() *Response {
	for i, b := range a.calls {
		if b.name == "" && b.args.Len() == 0 {
			continue
		}
		id := b.id
		if id == "" {
			id = "call_" + strconv.Itoa(i)
		}
		a.resp.ToolCalls = append(a.resp.ToolCalls, ToolCall{
			ID: id, Type: "function",
			Function: FunctionCall{Name: b.name, Arguments: b.args.String()},
		})
	}
	return &a.resp
}

// errStreamEnded marks the [DONE] sentinel.
var errStreamEnded = errors.New("stream ended")

// readSSE reads server-sent events from r and calls fn with the data of
// each event. Lines may be of any length; an event's data lines are joined
// with newlines, per the SSE specification.
func readSSE(r io.Reader, fn func(data []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data bytes.Buffer
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
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimRight(line, "\r\n")
			switch {
			case len(line) == 0:
				if ferr := flush(); ferr != nil {
					return ferr
				}
			case line[0] == ':':
				// comment, e.g. keep-alive
			default:
				field, value, _ := bytes.Cut(line, []byte(":"))
				value = bytes.TrimPrefix(value, []byte(" "))
				if string(field) == "data" {
					if data.Len() > 0 {
						data.WriteByte('\n')
					}
					data.Write(value)
				}
			}
		}
		if err == io.EOF {
			return flush()
		}
		if err != nil {
			return err
		}
	}
}

// decodeStream reads a streamed answer, calling onDelta for text.
func decodeStream(r io.Reader, onDelta func(Delta)) (*Response, error) {
	a := newAssembler()
	err := readSSE(r, func(data []byte) error {
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("malformed stream event %q: %w", truncate(data, 200), err)
		}
		if c.Error != nil {
			return &APIError{Message: c.Error.Message, Type: c.Error.Type}
		}
		if d := a.add(&c); onDelta != nil && (d.Content != "" || d.Reasoning != "") {
			onDelta(d)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStreamEnded) {
		return nil, err
	}
	return a.finish(), nil
}

// decodeWhole reads a non-streamed chat.completion.
func decodeWhole(r io.Reader, onDelta func(Delta)) (*Response, error) {
	var c chunk
	if err := json.NewDecoder(r).Decode(&c); err != nil {
		return nil, fmt.Errorf("malformed response: %w", err)
	}
	if c.Error != nil {
		return nil, &APIError{Message: c.Error.Message, Type: c.Error.Type}
	}
	a := newAssembler()
	if d := a.add(&c); onDelta != nil && (d.Content != "" || d.Reasoning != "") {
		onDelta(d)
	}
	return a.finish(), nil
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "..."
}
