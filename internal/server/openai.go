package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	hnames "github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// The OpenAI-compatible endpoint: an OpenAI client pointed at
// http://127.0.0.1:PORT/v1 with the client token (`hearth token --openai`)
// as its API key talks to Hearth's agent, which runs its own tools under
// Hearth's policy. These three routes are the only ones the client token
// reaches (route.client); the approvals its turns wait for are answered
// with the owner's token.
//
// Sessions (docs/http-api.md, "OpenAI-compatible"): the channel is
// "openai". A request naming a session, by the X-Hearth-Session header or
// else the user field, continues that chat: Hearth keeps its history, and
// only the request's last user message is new. A request naming none is a
// fresh chat: the earlier user and assistant messages of the request are
// written to it as its history, then the last user message is answered.

// OpenAIChannel is the channel the OpenAI-compatible endpoint's sessions
// belong to.
const OpenAIChannel = hnames.ChannelOpenAI

// OpenAIModel is the one model the endpoint lists: Hearth's agent.
const OpenAIModel = "hearth"

// SessionHeader names the Hearth session a chat completions request
// continues.
const SessionHeader = "X-Hearth-Session"

// modelCreated is the created time /v1/models reports: the daemon's start.
var modelCreated = time.Now().Unix()

// Model is one entry of GET /v1/models, OpenAI's shape.
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"` // "model"
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// ModelList is GET /v1/models' answer.
type ModelList struct {
	Object string  `json:"object"` // "list"
	Data   []Model `json:"data"`
}

// ChatCompletion is a non-streaming chat completions answer.
type ChatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"` // "chat.completion"
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []ChatChoice `json:"choices"`
	Usage   *ChatUsage   `json:"usage"`
}

// ChatChoice is the one choice of a ChatCompletion.
type ChatChoice struct {
	Index        int           `json:"index"`
	Message      AnswerMessage `json:"message"`
	Logprobs     *struct{}     `json:"logprobs"` // always null
	FinishReason string        `json:"finish_reason"`
}

// AnswerMessage is the agent's answer in a ChatChoice. ReasoningContent
// is the model's reasoning, when it shows it (DeepSeek's field name).
type AnswerMessage struct {
	Role             string  `json:"role"` // "assistant"
	Content          string  `json:"content"`
	Refusal          *string `json:"refusal"` // always null
	ReasoningContent string  `json:"reasoning_content,omitempty"`
}

// ChatUsage is the token usage of the turn's model calls, all of them.
type ChatUsage struct {
	PromptTokens        int                  `json:"prompt_tokens"`
	CompletionTokens    int                  `json:"completion_tokens"`
	TotalTokens         int                  `json:"total_tokens"`
	PromptTokensDetails *PromptTokensDetails `json:"prompt_tokens_details,omitempty"`
}

// PromptTokensDetails says how many prompt tokens the provider's cache
// served.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// ChatCompletionChunk is one server-sent event of a streaming answer
// (`data: {chunk}`); the stream ends with `data: [DONE]`.
type ChatCompletionChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"` // "chat.completion.chunk"
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []ChunkChoice `json:"choices"`
	// Usage is null on every chunk but the last when
	// stream_options.include_usage is set (that last one has no
	// choices), and absent otherwise.
	Usage *ChatUsage `json:"usage,omitempty"`
}

// ChunkChoice is the one choice of a chunk.
type ChunkChoice struct {
	Index        int        `json:"index"`
	Delta        ChunkDelta `json:"delta"`
	Logprobs     *struct{}  `json:"logprobs"`      // always null
	FinishReason *string    `json:"finish_reason"` // null until the last choice chunk: "stop"
}

// ChunkDelta is what a chunk adds to the answer.
type ChunkDelta struct {
	Role             string  `json:"role,omitempty"`
	Content          *string `json:"content,omitempty"`
	ReasoningContent string  `json:"reasoning_content,omitempty"`
}

func (s *Server) openAIRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/models", summary: "OpenAI-compatible: the models, one: hearth (the agent).",
			out: ModelList{}, client: true, h: s.listModels},
		{method: "GET", path: "/v1/models/{id}", summary: "OpenAI-compatible: one model.",
			out: Model{}, client: true, h: s.getModel},
		{method: "POST", path: "/v1/chat/completions", summary: "OpenAI-compatible chat completions, answered by the agent " +
			"(stream: true answers chat.completion.chunk events, then [DONE]).",
			in: ChatCompletionRequest{}, out: ChatCompletion{}, client: true, h: s.chatCompletions},
	}
}

func hearthModel() Model {
	return Model{ID: OpenAIModel, Object: "model", Created: modelCreated, OwnedBy: "hearth"}
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, ModelList{Object: "list", Data: []Model{hearthModel()}})
}

func (s *Server) getModel(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("id") != OpenAIModel {
		writeError(w, http.StatusNotFound, "model_not_found",
			fmt.Sprintf("the model %q does not exist: this server has one, %q (Hearth's agent)", r.PathValue("id"), OpenAIModel))
		return
	}
	writeJSON(w, http.StatusOK, hearthModel())
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	in, err := decodeChatRequest(r.Body)
	var re *requestError
	if errors.As(err, &re) {
		writeError(w, re.status, re.code, re.msg)
		return
	}
	chat := r.Header.Get(SessionHeader)
	if err := validSession(chat); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_session", SessionHeader+": "+err.Error())
		return
	}
	if chat == "" {
		chat = in.req.User
	}
	if chat == "" {
		if chat, err = s.freshChat(r.Context(), in.history); err != nil {
			s.log.Error("openai: starting a chat", "err", err)
			writeError(w, http.StatusInternalServerError, "not_saved", "the conversation could not be saved: "+err.Error())
			return
		}
	}
	c := &completion{id: "chatcmpl-" + randomHex(12), created: time.Now().Unix(), w: w,
		stream: in.req.Stream, usageChunk: in.req.StreamOptions != nil && in.req.StreamOptions.IncludeUsage}
	stop := c.keepAlive(streamKeepAlive)
	out := s.app.Kernel.Ask(r.Context(), kernel.Input{
		Injection: sdk.Injection{Source: OpenAIChannel, Channel: OpenAIChannel, ChatID: chat, UserID: "owner", Text: in.text},
		OnEvent:   c.event,
		Approver:  s.openAIApprover(r),
	})
	stop()
	if out.Err != nil {
		c.fail(s.explain(r.Context(), out))
		return
	}
	c.finish(out.Text)
}

// openAIApprover is who approves the tool calls of an OpenAI client's turn.
// An OpenAI client cannot answer an approval itself: the request waits in
// the broker, where the web UI, a terminal or the API answers it (or it
// expires and is denied).
func (s *Server) openAIApprover(*http.Request) policy.Approver { return s.Approvals().Approver(nil) }

// freshChat starts a new chat of the openai channel holding history, and
// returns its id.
func (s *Server) freshChat(ctx context.Context, history []turnMessage) (string, error) {
	chat := "req-" + randomHex(12)
	if len(history) == 0 {
		return chat, nil
	}
	sess, err := s.app.Store.Session(ctx, OpenAIChannel, chat)
	if err != nil {
		return "", err
	}
	msgs := make([]store.Message, len(history))
	for i, m := range history {
		msgs[i] = store.Message{Role: m.role, Content: m.text}
	}
	return chat, s.app.Store.AppendMessages(ctx, sess.ID, msgs)
}

// explain turns a failed turn into the status, code and message to answer.
func (s *Server) explain(ctx context.Context, out kernel.Outcome) *requestError {
	e := s.explainUnmasked(ctx, out)
	e.msg = s.app.Sources.Secrets().String(e.msg) // whatever the error quotes
	return e
}

func (s *Server) explainUnmasked(ctx context.Context, out kernel.Outcome) *requestError {
	err := out.Err
	switch {
	case ctx.Err() != nil:
		return &requestError{status: 499, code: "client_closed", msg: "the client went away"}
	case errors.Is(err, kernel.ErrClosed):
		return &requestError{status: http.StatusServiceUnavailable, code: "shutting_down", msg: "Hearth is shutting down"}
	case out.Interrupted:
		return &requestError{status: http.StatusConflict, code: "interrupted", msg: "the turn was interrupted: " + err.Error()}
	case errors.Is(err, kernel.ErrInputTooLong):
		return &requestError{status: http.StatusBadRequest, code: "context_length_exceeded", msg: err.Error()}
	}
	msg := s.explainText(err)
	if errors.Is(err, llm.ErrNoSource) {
		return &requestError{status: http.StatusServiceUnavailable, code: "no_provider", msg: msg}
	}
	return &requestError{status: http.StatusBadGateway, code: "provider_error", msg: msg}
}

// turnError is a failed turn's message for the web UI and the sessions
// API: what terminal.Explain tells a terminal's user (what to do about a
// budget, a rejected key, a wrong model or address, in English and
// Chinese; the error as it is otherwise), with the keys masked.
func (s *Server) turnError(err error) string {
	return s.app.Sources.Secrets().String(s.explainText(err))
}

// explainText is terminal.Explain's message for err with the source in
// use, unmasked.
func (s *Server) explainText(err error) string {
	src, _ := s.app.Sources.Current()
	return terminal.Explain(err, src, filepath.Join(s.app.DataDir, config.FileName))
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	return hex.EncodeToString(b)
}
