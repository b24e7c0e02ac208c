// Package llm talks to model providers in two wire formats: OpenAI's chat
// completions, which DeepSeek, Qwen, Kimi, GLM, SiliconFlow, OpenAI,
// Ollama and vLLM all speak, and Anthropic's Messages API (Source.API);
// Sources switches between named endpoints live.
package llm

import (
	"context"
	"encoding/json"
)

// Message is one chat message in the OpenAI wire format.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	// Reasoning is the model's reasoning text. It is kept in history for
	// the user but not sent back: several providers reject it in input.
	Reasoning string `json:"-"`
	// Images are pictures sent with a user message's text, as content
	// parts (tool messages cannot carry images on the OpenAI wire). Only
	// the kernel adds them, for a model that accepts images; they are
	// never stored (see docs/architecture.md).
	Images []Image `json:"-"`
	// ThinkingBlocks are the Anthropic wire's thinking blocks of an
	// assistant message, as a JSON array of the blocks the provider sent
	// (thinking with its signature, redacted_thinking), sent back as they
	// came: Anthropic needs them when the model thought before calling
	// tools. Kept only within a turn, never stored; nil on the OpenAI
	// wire.
	ThinkingBlocks json.RawMessage `json:"-"`
}

// MarshalJSON writes content as null for an assistant message that only
// calls tools, as the OpenAI API documents, and as content parts (text,
// then image_url parts with data URLs) for a message with images.
func (m Message) MarshalJSON() ([]byte, error) {
	type wire struct {
		Role       string     `json:"role"`
		Content    any        `json:"content"`
		ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
		Name       string     `json:"name,omitempty"`
	}
	w := wire{Role: m.Role, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Name: m.Name}
	switch {
	case len(m.Images) > 0:
		w.Content = contentParts(m.Content, m.Images)
	case m.Content != "" || len(m.ToolCalls) == 0:
		w.Content = m.Content
	}
	return json.Marshal(w)
}

// ToolCall is one function call requested by the model.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as the JSON
// text the model produced.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolSpec declares one tool to the model.
type ToolSpec struct {
	Type     string       `json:"type"`
	Function FunctionSpec `json:"function"`

	enc *encodedSpec // see NewToolSpec
}

// FunctionSpec is the function part of a ToolSpec.
type FunctionSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat completion request.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolSpec
}

// Usage is the token accounting of one model call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// CachedTokens counts prompt tokens served from the provider's cache
	// (OpenAI's prompt_tokens_details.cached_tokens, DeepSeek's
	// prompt_cache_hit_tokens).
	CachedTokens int `json:"cached_tokens"`
	// ReasoningTokens counts completion tokens spent reasoning, when the
	// provider reports them (completion_tokens_details.reasoning_tokens).
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// CacheWriteTokens counts prompt tokens written to the provider's
	// cache by this call (Anthropic's cache_creation_input_tokens), which
	// some providers bill above the input price (Price.CacheWrite). They
	// are among PromptTokens, and never among CachedTokens.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

// Map returns the usage as StageContext.TokenUsage carries it.
func (u Usage) Map() map[string]int {
	return map[string]int{
		"prompt_tokens":     u.PromptTokens,
		"completion_tokens": u.CompletionTokens,
		"total_tokens":      u.TotalTokens,
		"cached_tokens":     u.CachedTokens,
	}
}

// Response is a complete model answer.
type Response struct {
	Content   string
	Reasoning string
	// ThinkingBlocks are the Anthropic wire's thinking blocks, for
	// Message.ThinkingBlocks of the assistant message that carries
	// ToolCalls; nil on the OpenAI wire.
	ThinkingBlocks json.RawMessage
	ToolCalls      []ToolCall
	Usage          Usage
	FinishReason   string
	Model          string
	// Source is the name of the source that answered, set by Sources;
	// Fallback says why the sources before it did not ("deepseek: 429
	// rate limited"), empty when the first one answered.
	Source   string
	Fallback string
}

// Delta is a piece of a streamed answer.
type Delta struct {
	Content   string
	Reasoning string
	// Retry, when set, is not a piece of the answer: it says that the
	// call failed before any answer came and will be tried again.
	// Content and Reasoning are empty then.
	Retry *Retry
}

// Provider answers chat requests. onDelta, when not nil, receives the
// answer as it streams; it is called from the calling goroutine. An answer
// that is cut off, empty, malformed or too large is an error (ErrIncomplete,
// ErrEmptyAnswer, ErrMalformed, ErrTooLarge), never a short success; with
// ErrIncomplete the part that arrived may be returned too.
type Provider interface {
	Chat(ctx context.Context, req *Request, onDelta func(Delta)) (*Response, error)
}
