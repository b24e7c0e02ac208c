package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Wire formats a Source can speak (Source.API).
const (
	// APIOpenAI is OpenAI's chat completions, the default.
	APIOpenAI = "openai"
	// APIAnthropic is Anthropic's Messages API (POST /v1/messages).
	APIAnthropic = "anthropic"
)

// CheckAPI says what is wrong with a wire format name; "" is APIOpenAI.
func CheckAPI(api string) error {
	switch api {
	case "", APIOpenAI, APIAnthropic:
		return nil
	}
	return fmt.Errorf("api %q is not a wire format Hearth speaks (%q or %q)", api, APIOpenAI, APIAnthropic)
}

// AnthropicVersion is the anthropic-version header sent with every
// request of the Anthropic wire: the version whose wire this file
// implements.
const AnthropicVersion = "2023-06-01"

// Defaults of the Anthropic wire, which needs max_tokens on every request.
const (
	// DefaultAnthropicMaxTokens is max_tokens when the source sets none,
	// on top of the thinking budget when thinking is on.
	DefaultAnthropicMaxTokens = 8192
	// MinThinkingBudget is the smallest thinking budget Anthropic takes.
	MinThinkingBudget = 1024
)

func (c *Client) anthropic() bool { return c.API == APIAnthropic }

// anthropicEndpoint is the Messages endpoint of a base URL given either
// as the API's root (https://api.anthropic.com) or with its version
// (https://api.anthropic.com/v1).
func anthropicEndpoint(base string) string {
	base = strings.TrimRight(base, "/")
	if strings.HasSuffix(base, "/v1") {
		return base + "/messages"
	}
	return base + "/v1/messages"
}

// setAuth puts the key on a request in the wire's own header: a bearer
// token for OpenAI, x-api-key and the version for Anthropic.
func (c *Client) setAuth(h http.Header) {
	if c.anthropic() {
		h.Set("anthropic-version", AnthropicVersion)
		if c.APIKey != "" {
			h.Set("x-api-key", c.APIKey)
		}
		return
	}
	if c.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.APIKey)
	}
}

// cacheControl marks a block as a prompt-cache breakpoint: Anthropic
// caches the request's prefix up to and including it.
const cacheControl = `,"cache_control":{"type":"ephemeral"}`

// withCacheControl returns block (a JSON object) marked as a breakpoint.
func withCacheControl(block []byte) []byte {
	out := make([]byte, 0, len(block)+len(cacheControl))
	out = append(out, block[:len(block)-1]...)
	out = append(out, cacheControl...)
	return append(out, '}')
}

// anthMsg is one message of the Anthropic wire as encoded blocks.
type anthMsg struct {
	role   string
	blocks [][]byte
}

// encodeAnthropic encodes req for the Messages API, streamed. Leading
// system messages become the system prompt; later ones are passed as
// user text, since the wire has no system role in messages. Tool results
// become tool_result blocks of a user message, consecutive messages of
// one role are merged (the wire alternates roles), and prompt-cache
// breakpoints mark the end of the tools, of the system prompt, of the
// history before the last user message, and of the whole request, so
// the next call reads what this one wrote.
func (c *Client) encodeAnthropic(req *Request, model string) ([]byte, error) {
	var system []string
	i := 0
	for ; i < len(req.Messages) && req.Messages[i].Role == "system"; i++ {
		if req.Messages[i].Content != "" {
			system = append(system, req.Messages[i].Content)
		}
	}
	msgs, err := anthropicMessages(req.Messages[i:])
	if err != nil {
		return nil, err
	}
	thinking := c.ThinkingBudget >= MinThinkingBudget && thinkingAllowed(req.Messages)
	maxTokens := c.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultAnthropicMaxTokens
	}
	if thinking && maxTokens <= c.ThinkingBudget {
		maxTokens += c.ThinkingBudget
	}

	body := make([]byte, 0, 4096)
	body = append(body, `{"model":`...)
	body = appendJSONString(body, model)
	body = fmt.Appendf(body, `,"max_tokens":%d`, maxTokens)
	if thinking {
		body = fmt.Appendf(body, `,"thinking":{"type":"enabled","budget_tokens":%d}`, c.ThinkingBudget)
	}
	tools := make([][]byte, len(req.Tools))
	for j := range req.Tools {
		if tools[j], err = req.Tools[j].anthropicJSON(); err != nil {
			return nil, err
		}
	}
	forbid := false
	if len(tools) == 0 {
		tools = usedTools(req.Messages)
		forbid = len(tools) > 0
	}
	if len(tools) > 0 {
		body = append(body, `,"tools":[`...)
		for j, spec := range tools {
			if j > 0 {
				body = append(body, ',')
			}
			if j == len(tools)-1 {
				spec = withCacheControl(spec)
			}
			body = append(body, spec...)
		}
		body = append(body, ']')
		if forbid {
			body = append(body, `,"tool_choice":{"type":"none"}`...)
		}
	}
	if len(system) > 0 {
		body = append(body, `,"system":[`...)
		for j, s := range system {
			if j > 0 {
				body = append(body, ',')
			}
			blk := textBlock(s)
			if j == len(system)-1 {
				blk = withCacheControl(blk)
			}
			body = append(body, blk...)
		}
		body = append(body, ']')
	}
	markBreakpoints(msgs)
	body = append(body, `,"messages":[`...)
	for j, m := range msgs {
		if j > 0 {
			body = append(body, ',')
		}
		body = append(body, `{"role":"`...)
		body = append(body, m.role...)
		body = append(body, `","content":[`...)
		for k, b := range m.blocks {
			if k > 0 {
				body = append(body, ',')
			}
			body = append(body, b...)
		}
		body = append(body, "]}"...)
	}
	body = append(body, `],"stream":true}`...)
	return body, nil
}

// markBreakpoints marks the last block of the request, where this call
// writes the cache, and the last block of the user message before the
// last one, where the previous call of the conversation wrote it (a tool
// result of this turn, or the previous turn's question): with the tools'
// and the system prompt's, four, Anthropic's limit.
func markBreakpoints(msgs []anthMsg) {
	if len(msgs) == 0 {
		return
	}
	mark := func(m *anthMsg) { m.blocks[len(m.blocks)-1] = withCacheControl(m.blocks[len(m.blocks)-1]) }
	mark(&msgs[len(msgs)-1])
	for j := len(msgs) - 2; j >= 0; j-- {
		if msgs[j].role == "user" {
			mark(&msgs[j])
			return
		}
	}
}

// thinkingAllowed reports whether thinking may be asked for: Anthropic
// refuses it when the last assistant message, calling tools, does not
// begin with the thinking that came with it, and Hearth keeps that
// thinking (ThinkingBlocks) only within a turn.
func thinkingAllowed(msgs []Message) bool {
	for j := len(msgs) - 1; j >= 0; j-- {
		if msgs[j].Role == "assistant" {
			return len(msgs[j].ToolCalls) == 0 || len(msgs[j].ThinkingBlocks) > 0
		}
	}
	return true
}

// anthropicMessages converts messages after the system prompt. The wire
// pairs calls and results strictly: every tool_use must be answered by a
// tool_result at the start of the next message, and every tool_result
// must answer a tool_use of the message before. A history that breaks a
// pair (a call whose result was never recorded, a result whose call was
// cut away) is repaired rather than refused: the call gets a result
// saying so, the stray result goes as text. The first message is a
// user's, as the wire requires.
func anthropicMessages(in []Message) ([]anthMsg, error) {
	out := make([]anthMsg, 0, len(in)+1)
	add := func(role string, blocks ...[]byte) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].role == role {
			out[n-1].blocks = append(out[n-1].blocks, blocks...)
			return
		}
		out = append(out, anthMsg{role: role, blocks: blocks})
	}
	// The calls of the last assistant message not answered yet, in
	// order, and stray results to pass as text once they are.
	var open []string
	var stray [][]byte
	closeCalls := func() {
		for _, id := range open {
			b := []byte(`{"type":"tool_result","tool_use_id":`)
			b = appendJSONString(b, id)
			add("user", append(b, `,"content":"(no result: the call was not completed)","is_error":true}`...))
		}
		open = open[:0]
		add("user", stray...)
		stray = nil
	}
	for _, m := range in {
		var blocks [][]byte
		switch m.Role {
		case "assistant":
			closeCalls()
			if len(m.ThinkingBlocks) > 0 {
				var raw []json.RawMessage
				if err := json.Unmarshal(m.ThinkingBlocks, &raw); err != nil {
					return nil, fmt.Errorf("an assistant message's thinking blocks: %w", err)
				}
				for _, r := range raw {
					blocks = append(blocks, []byte(r))
				}
			}
			if strings.TrimSpace(m.Content) != "" {
				blocks = append(blocks, textBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, toolUseBlock(tc))
				open = append(open, tc.ID)
			}
			add("assistant", blocks...)
		case "tool":
			i := slices.Index(open, m.ToolCallID)
			if i < 0 {
				stray = append(stray, textBlock("[a tool result whose call is not in the conversation] "+m.Content))
				continue
			}
			open = slices.Delete(open, i, i+1)
			b := []byte(`{"type":"tool_result","tool_use_id":`)
			b = appendJSONString(b, m.ToolCallID)
			if m.Content != "" {
				b = append(b, `,"content":`...)
				b = appendJSONString(b, m.Content)
			}
			add("user", append(b, '}'))
		default: // user, and a system message within the conversation
			closeCalls()
			text := m.Content
			if m.Role == "system" && text != "" {
				text = "[system] " + text
			}
			if strings.TrimSpace(text) != "" {
				blocks = append(blocks, textBlock(text))
			}
			for _, im := range m.Images {
				blocks = append(blocks, imageBlock(im))
			}
			if len(blocks) == 0 && m.Role == "user" {
				blocks = append(blocks, textBlock("(empty message)"))
			}
			add("user", blocks...)
		}
	}
	closeCalls()
	if len(out) == 0 {
		out = append(out, anthMsg{role: "user", blocks: [][]byte{textBlock("(empty message)")}})
	}
	if out[0].role != "user" {
		out = append([]anthMsg{{role: "user", blocks: [][]byte{textBlock("(the conversation before this point was left out)")}}}, out...)
	}
	return out, nil
}

// usedTools declares the tools that msgs called, for a request that
// offers none (a turn's last step): Anthropic refuses tool_use blocks in
// a request without tools. They are declared with no schema, and
// tool_choice none forbids calling them.
func usedTools(msgs []Message) [][]byte {
	var names []string
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if !slices.Contains(names, tc.Function.Name) {
				names = append(names, tc.Function.Name)
			}
		}
	}
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i] = append(appendJSONString([]byte(`{"name":`), n), `,"input_schema":{"type":"object"}}`...)
	}
	return out
}

func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return append(dst, b...)
}

func textBlock(s string) []byte {
	return append(appendJSONString([]byte(`{"type":"text","text":`), s), '}')
}

// toolUseBlock encodes a call the model made. Its arguments go back as
// the input object; arguments that are not a JSON object (a model's
// malformed call) are kept as text under "arguments", so nothing is lost.
func toolUseBlock(tc ToolCall) []byte {
	b := []byte(`{"type":"tool_use","id":`)
	b = appendJSONString(b, tc.ID)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, tc.Function.Name)
	b = append(b, `,"input":`...)
	args := strings.TrimSpace(tc.Function.Arguments)
	var obj map[string]json.RawMessage
	switch {
	case args == "":
		b = append(b, "{}"...)
	case json.Unmarshal([]byte(args), &obj) == nil && obj != nil:
		b = append(b, args...)
	default:
		b = append(b, `{"arguments":`...)
		b = appendJSONString(b, tc.Function.Arguments)
		b = append(b, '}')
	}
	return append(b, '}')
}

// imageBlock encodes an image: its bytes as base64, a data: URL's the
// same way, an http(s) URL as a URL source.
func imageBlock(im Image) []byte {
	mt, data := im.MIMEType, ""
	if im.URL != "" {
		rest, ok := strings.CutPrefix(im.URL, "data:")
		head, payload, comma := strings.Cut(rest, ",")
		if !ok || !comma || !strings.HasSuffix(head, ";base64") {
			b := []byte(`{"type":"image","source":{"type":"url","url":`)
			b = appendJSONString(b, im.URL)
			return append(b, "}}"...)
		}
		mt, data = strings.TrimSuffix(head, ";base64"), payload
	} else {
		data = base64.StdEncoding.EncodeToString(im.Data)
	}
	b := []byte(`{"type":"image","source":{"type":"base64","media_type":`)
	b = appendJSONString(b, mt)
	b = append(b, `,"data":`...)
	b = appendJSONString(b, data)
	return append(b, "}}"...)
}

// anthropicSpec is a ToolSpec in the Anthropic wire's shape.
type anthropicSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// anthropicJSON returns the spec as the Anthropic wire takes it:
// encoded once per NewToolSpec, like its OpenAI encoding, so the bytes
// stay the same from request to request.
func (s *ToolSpec) anthropicJSON() ([]byte, error) {
	if e := s.enc; e != nil && e.typ == s.Type && e.name == s.Function.Name &&
		e.desc == s.Function.Description && sameSlice(e.params, s.Function.Parameters) {
		e.anthOnce.Do(func() { e.anth, e.anthErr = encodeAnthropicSpec(s) })
		return e.anth, e.anthErr
	}
	return encodeAnthropicSpec(s)
}

func encodeAnthropicSpec(s *ToolSpec) ([]byte, error) {
	schema := s.Function.Parameters
	if t := strings.TrimSpace(string(schema)); t == "" || t == "null" {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	b, err := json.Marshal(anthropicSpec{Name: s.Function.Name, Description: s.Function.Description, InputSchema: schema})
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", s.Function.Name, err)
	}
	return b, nil
}

// anthOnceFields are kept on encodedSpec (see toolspec.go).
type anthOnceFields struct {
	anthOnce sync.Once
	anth     []byte
	anthErr  error
}
