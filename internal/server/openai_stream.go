package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
)

// completion answers one chat completions request from its turn's events:
// streamed as chunks when the request asked for a stream, else collected
// into one ChatCompletion.
//
// A stream starts at the turn's first text or reasoning, or at the first
// keep-alive (15 s) when there is none by then, so a turn that fails at
// once answers with an HTTP error the client reports as such.
// The text streamed is every piece the model wrote, the words before a
// tool call included, as the terminal shows them; when a stage rewrote
// the final answer, what differs from the streamed step is sent at the
// end (see finish).
type completion struct {
	id         string
	created    int64
	w          http.ResponseWriter
	stream     bool
	usageChunk bool // stream_options.include_usage

	mu        sync.Mutex
	started   bool            // a stream's headers and first chunk are sent
	stepText  strings.Builder // text of the current model step
	reasoning strings.Builder // non-streaming: the reasoning, collected
	usage     llm.Usage
}

// event receives the turn's events (from the turn's goroutine).
func (c *completion) event(ev kernel.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Kind {
	case kernel.EventText:
		c.stepText.WriteString(ev.Text)
		if c.stream {
			c.send(ChunkDelta{Content: &ev.Text}, nil)
		}
	case kernel.EventReasoning:
		if c.stream {
			c.send(ChunkDelta{ReasoningContent: ev.Text}, nil)
		} else {
			c.reasoning.WriteString(ev.Text)
		}
	case kernel.EventToolStart:
		c.stepText.Reset()
	case kernel.EventFinal:
		c.usage = ev.Usage
	}
}

// streamKeepAlive is how often a quiet stream gets a comment line
// (": keep-alive"), so proxies and clients do not close it while a tool
// runs or the model thinks; a stream with nothing yet to show starts at the
// first one.
var streamKeepAlive = 15 * time.Second

// keepAlive keeps a stream alive until the returned stop is called; stop
// returns once nothing more will be written.
func (c *completion) keepAlive(every time.Duration) (stop func()) {
	if !c.stream {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				c.mu.Lock()
				if c.started {
					c.writeRaw(": keep-alive\n\n")
				} else {
					c.send(ChunkDelta{}, nil)
				}
				c.mu.Unlock()
			}
		}
	}()
	return func() { close(done); <-exited }
}

// finish answers with the final text.
func (c *completion) finish(final string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stream {
		writeJSON(c.w, http.StatusOK, ChatCompletion{ID: c.id, Object: "chat.completion", Created: c.created, Model: OpenAIModel,
			Choices: []ChatChoice{{Message: AnswerMessage{Role: "assistant", Content: final, ReasoningContent: c.reasoning.String()},
				FinishReason: "stop"}},
			Usage: chatUsage(c.usage)})
		return
	}
	streamed := c.stepText.String()
	switch {
	case streamed == final:
	case strings.HasPrefix(final, streamed):
		rest := final[len(streamed):]
		c.send(ChunkDelta{Content: &rest}, nil)
	default:
		// A stage rewrote the answer, or none of it was streamed.
		if streamed != "" {
			final = "\n\n" + final
		}
		c.send(ChunkDelta{Content: &final}, nil)
	}
	stop := "stop"
	c.send(ChunkDelta{}, &stop)
	if c.usageChunk {
		c.write(ChatCompletionChunk{ID: c.id, Object: "chat.completion.chunk", Created: c.created, Model: OpenAIModel,
			Choices: []ChunkChoice{}, Usage: chatUsage(c.usage)})
	}
	c.writeData([]byte("[DONE]"))
}

// fail answers a failed turn: an HTTP error before the stream started,
// an error event inside it after (the OpenAI clients raise it).
func (c *completion) fail(e *requestError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		if e.status != 499 {
			writeError(c.w, e.status, e.code, e.msg)
		}
		return
	}
	b, _ := json.Marshal(apiError{Error: apiErrorBody{Message: e.msg, Type: errorType(e.status), Code: e.code}})
	c.writeData(b)
}

// send writes one chunk with one choice; c.mu is held.
func (c *completion) send(d ChunkDelta, finish *string) {
	if !c.started {
		c.started = true
		h := c.w.Header()
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Accel-Buffering", "no")
		c.w.WriteHeader(http.StatusOK)
		empty := ""
		if d.Content == nil && d.ReasoningContent == "" && finish == nil {
			d.Content = &empty
		}
		d.Role = "assistant"
	}
	chunk := ChatCompletionChunk{ID: c.id, Object: "chat.completion.chunk", Created: c.created, Model: OpenAIModel,
		Choices: []ChunkChoice{{Delta: d, FinishReason: finish}}}
	c.write(chunk)
}

// withUsage is a chunk whose usage is always written, null or not: the
// outer field hides the chunk's own, which is left out when nil.
type withUsage struct {
	ChatCompletionChunk
	Usage *ChatUsage `json:"usage"`
}

// write writes a chunk as one event. With include_usage every chunk
// carries "usage": null but the usage chunk itself, as OpenAI's do.
func (c *completion) write(chunk ChatCompletionChunk) {
	var v any = chunk
	if c.usageChunk {
		v = withUsage{chunk, chunk.Usage}
	}
	b, _ := json.Marshal(v)
	c.writeData(b)
}

// writeData writes one server-sent event and flushes it.
func (c *completion) writeData(b []byte) {
	c.writeRaw("data: " + string(b) + "\n\n")
}

// writeRaw writes text to the stream and flushes it.
func (c *completion) writeRaw(text string) {
	if _, err := io.WriteString(c.w, text); err != nil {
		return // the client went away; the request's context ends the turn
	}
	_ = http.NewResponseController(c.w).Flush()
}

func chatUsage(u llm.Usage) *ChatUsage {
	out := &ChatUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if out.TotalTokens == 0 {
		out.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	if u.CachedTokens > 0 {
		out.PromptTokensDetails = &PromptTokensDetails{CachedTokens: u.CachedTokens}
	}
	return out
}
