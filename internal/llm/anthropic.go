package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
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
	if len(req.Tools) > 0 {
		body = append(body, `,"tools":[`...)
		for j := range req.Tools {
			if j > 0 {
				body = append(body, ',')
			}
			spec, err := req.Tools[j].anthropicJSON()
			if err != nil {
				return nil, err
			}
			if j == len(req.Tools)-1 {
				spec = withCacheControl(spec)
			}
			body = append(body, spec...)
		}
		body = append(body, ']')
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

// anthropicMessages converts messages after the system prompt.
func anthropicMessages(in []Message) ([]anthMsg, error) {
	out := make([]anthMsg, 0, len(in))
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
	for _, m := range in {
		var blocks [][]byte
		switch m.Role {
		case "assistant":
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
			}
			add("assistant", blocks...)
		case "tool":
			b := []byte(`{"type":"tool_result","tool_use_id":`)
			b = appendJSONString(b, m.ToolCallID)
			if m.Content != "" {
				b = append(b, `,"content":`...)
				b = appendJSONString(b, m.Content)
			}
			add("user", append(b, '}'))
		default: // user, and a system message within the conversation
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
	return out, nil
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
