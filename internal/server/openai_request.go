package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
)

// ChatCompletionRequest is POST /v1/chat/completions' body, OpenAI's
// shape. Unknown fields are accepted and ignored, since clients send new
// ones before Hearth knows them; the fields listed as ignored are read
// only to check their type. See docs/http-api.md for how the messages map
// to Hearth's sessions.
type ChatCompletionRequest struct {
	// Model is accepted whatever it names; the answer always comes from
	// Hearth's agent (model "hearth") with the current model source.
	Model string `json:"model"`
	// Messages is the conversation; the last one must be the user's.
	Messages []ChatMessage `json:"messages"`
	// Stream answers with server-sent chat.completion.chunk events.
	Stream bool `json:"stream,omitempty"`
	// StreamOptions.IncludeUsage adds a last chunk with the usage.
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
	// N must be 1 (or absent): one agent gives one answer.
	N *int `json:"n,omitempty"`
	// User names the Hearth session (chat) the request continues, when
	// the X-Hearth-Session header does not.
	User string `json:"user,omitempty"`

	// Tools and Functions (client-side tools) are refused: the agent
	// calls its own tools. ToolChoice "none" or "auto" is accepted.
	Tools      json.RawMessage `json:"tools,omitempty"`
	Functions  json.RawMessage `json:"functions,omitempty"`
	ToolChoice json.RawMessage `json:"tool_choice,omitempty"`
	// ResponseFormat may only be {"type": "text"}.
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`

	// Ignored: the agent's model source decides these.
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	MaxTokens           *int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int            `json:"max_completion_tokens,omitempty"`
	PresencePenalty     *float64        `json:"presence_penalty,omitempty"`
	FrequencyPenalty    *float64        `json:"frequency_penalty,omitempty"`
	Seed                *int64          `json:"seed,omitempty"`
	Stop                json.RawMessage `json:"stop,omitempty"`
	LogitBias           json.RawMessage `json:"logit_bias,omitempty"`
	Metadata            json.RawMessage `json:"metadata,omitempty"`
}

// ChatMessage is one message of a ChatCompletionRequest. Content is a
// string or an array of {"type": "text", "text": ...} parts.
type ChatMessage struct {
	Role    string          `json:"role"` // system, developer, user or assistant
	Content json.RawMessage `json:"content,omitempty"`
	Name    string          `json:"name,omitempty"`
	// ToolCalls and FunctionCall (of an assistant message) are refused,
	// as client-side tools are.
	ToolCalls    json.RawMessage `json:"tool_calls,omitempty"`
	FunctionCall json.RawMessage `json:"function_call,omitempty"`
}

// StreamOptions are a streaming request's options.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage,omitempty"`
}

// ResponseFormat is the requested format of the answer.
type ResponseFormat struct {
	Type string `json:"type"`
}

// turnMessage is a message of the conversation as Hearth uses it: the
// role (user or assistant) and the text.
type turnMessage struct {
	role, text string
}

// chatInput is a decoded, checked chat completions request.
type chatInput struct {
	req     ChatCompletionRequest
	text    string        // the last user message: the agent's input
	history []turnMessage // the user and assistant messages before it
}

// requestError is a request Hearth will not answer, with the status and
// the OpenAI-style error code to answer it with.
type requestError struct {
	status int
	code   string
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(code, format string, args ...any) *requestError {
	return &requestError{status: http.StatusBadRequest, code: code, msg: fmt.Sprintf(format, args...)}
}

// errClientTools explains why a request with client-side tools is refused.
const errClientTools = "client-side tools are not supported: Hearth's agent calls its own tools (the plugins' tools, " +
	"under Hearth's policy and approvals). Send the request without %s"

// decodeChatRequest reads and checks a chat completions request. Unknown
// fields are ignored; a body past the server's limit is a 413.
func decodeChatRequest(body io.Reader) (*chatInput, error) {
	var in chatInput
	dec := json.NewDecoder(body)
	err := dec.Decode(&in.req)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, &requestError{status: http.StatusRequestEntityTooLarge, code: "body_too_large",
			msg: fmt.Sprintf("request body over %d bytes", tooBig.Limit)}
	case err != nil:
		return nil, badRequest("invalid_json", "invalid request body: %v", err)
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	return &in, nil
}

// check refuses what Hearth cannot honour and splits the conversation into
// the agent's input and its history.
func (in *chatInput) check() error {
	r := &in.req
	if r.N != nil && *r.N != 1 {
		return badRequest("unsupported_parameter", "n=%d is not supported: Hearth's agent gives one answer (n must be 1)", *r.N)
	}
	if present(r.Tools) {
		return badRequest("unsupported_parameter", errClientTools, "tools")
	}
	if present(r.Functions) {
		return badRequest("unsupported_parameter", errClientTools, "functions")
	}
	if present(r.ToolChoice) {
		var choice string
		if json.Unmarshal(r.ToolChoice, &choice) != nil || (choice != "none" && choice != "auto") {
			return badRequest("unsupported_parameter", errClientTools, "tool_choice")
		}
	}
	if rf := r.ResponseFormat; rf != nil && rf.Type != "" && rf.Type != "text" {
		return badRequest("unsupported_parameter", "response_format %q is not supported: the agent answers in text", rf.Type)
	}
	if len(r.Messages) == 0 {
		return badRequest("invalid_messages", "messages is empty: send at least the user's message")
	}
	if err := validSession(r.User); err != nil {
		return badRequest("invalid_user", "user: %v", err)
	}
	for i, m := range r.Messages {
		if present(m.ToolCalls) || present(m.FunctionCall) || m.Role == "tool" || m.Role == "function" {
			return badRequest("unsupported_parameter", errClientTools, fmt.Sprintf("tool messages (messages[%d])", i))
		}
		text, err := messageText(m.Content)
		if err != nil {
			return badRequest("invalid_messages", "messages[%d].content: %v", i, err)
		}
		switch m.Role {
		case "system", "developer":
			// Hearth's own system prompt applies; see docs/http-api.md.
		case "user", "assistant":
			if i == len(r.Messages)-1 {
				break
			}
			in.history = appendTurn(in.history, turnMessage{role: m.Role, text: text})
		default:
			return badRequest("invalid_messages", "messages[%d].role %q is not one of system, developer, user, assistant", i, m.Role)
		}
		if i == len(r.Messages)-1 {
			if m.Role != "user" {
				return badRequest("invalid_messages", "the last message must be the user's (it is %q)", m.Role)
			}
			if strings.TrimSpace(text) == "" {
				return badRequest("invalid_messages", "the last user message is empty")
			}
			in.text = text
		}
	}
	return nil
}

// appendTurn adds m to h, joining it to the previous message when both
// are the same role, so the history alternates as providers expect.
func appendTurn(h []turnMessage, m turnMessage) []turnMessage {
	if n := len(h); n > 0 && h[n-1].role == m.role {
		h[n-1].text += "\n\n" + m.text
		return h
	}
	return append(h, m)
}

// present reports whether a raw JSON field has a value other than null
// or an empty array.
func present(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null" && s != "[]"
}

// messageText returns a message content's text: a string, or the text
// parts of an array joined by newlines. Other parts (images, audio,
// files) are refused.
func messageText(raw json.RawMessage) (string, error) {
	if !present(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("must be a string or an array of text parts")
	}
	texts := make([]string, 0, len(parts))
	for i, p := range parts {
		if p.Type != "text" || p.Text == nil {
			return "", fmt.Errorf("part %d has type %q: only text parts are supported", i, p.Type)
		}
		texts = append(texts, *p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// maxSessionLen caps a session name from the user field or the header.
const maxSessionLen = 128

// validSession checks a session name: at most 128 characters, printable,
// no spaces at either end. Empty is valid (no session named).
func validSession(s string) error {
	if len(s) > maxSessionLen {
		return fmt.Errorf("a session name is at most %d bytes", maxSessionLen)
	}
	if strings.TrimSpace(s) != s {
		return errors.New("a session name may not start or end with spaces")
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
			return errors.New("a session name must be printable text")
		}
	}
	return nil
}
