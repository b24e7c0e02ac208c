package kernel

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/llm"
)

// DefaultContextWindow is the context window, in tokens, assumed for a
// model Hearth does not know and no configuration names. It is small on
// purpose: a local model served with a short context fails less often
// than a large one trimmed late.
const DefaultContextWindow = 8192

// knownWindows are the context windows of well-known model families,
// matched by the longest prefix of the lowercased model name (with any
// "vendor/" path removed), for models no preset lists.
var knownWindows = map[string]int{
	"deepseek":         128_000,
	"qwen-max":         32 << 10,
	"qwen-plus":        128 << 10,
	"qwen-turbo":       128 << 10,
	"qwen-long":        128 << 10,
	"qwen3":            32 << 10,
	"qwen2.5":          32 << 10,
	"qwen":             32 << 10,
	"moonshot-v1-8k":   8 << 10,
	"moonshot-v1-32k":  32 << 10,
	"moonshot-v1-128k": 128 << 10,
	"moonshot":         8 << 10,
	"kimi":             128 << 10,
	"glm-4":            128 << 10,
	"glm":              32 << 10,
	"gpt-4o":           128000,
	"gpt-4.1":          1000000,
	"gpt-4-turbo":      128000,
	"gpt-3.5-turbo":    16385,
	"o1":               200000,
	"o3":               200000,
	"o4-mini":          200000,
}

// WindowFor returns the context window of model: the one a provider
// preset lists for it (llm.PresetWindow), else its family's, else
// DefaultContextWindow.
func WindowFor(model string) int {
	if n, ok := llm.PresetWindow(model); ok {
		return n
	}
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	best, size := 0, DefaultContextWindow
	for prefix, n := range knownWindows {
		if strings.HasPrefix(m, prefix) && len(prefix) > best {
			best, size = len(prefix), n
		}
	}
	return size
}

// windowSource is implemented by providers that know their current source
// (llm.Sources), whose ContextWindow, when set, is the configured window.
type windowSource interface {
	Current() (llm.Source, bool)
}

// contextWindow returns the window of the model that will answer req and
// that model's name for messages ("the model" when none is set):
// Options.ContextWindow, else the source's configured window, else the
// model's known one.
func (k *Kernel) contextWindow(req *llm.Request) (int, string) {
	window, model := k.window(req)
	if model == "" {
		model = "the model"
	}
	return window, model
}

func (k *Kernel) window(req *llm.Request) (int, string) {
	model := req.Model
	configured := k.cfg.ContextWindow
	if ws, ok := k.provider.(windowSource); ok {
		if src, ok := ws.Current(); ok {
			if model == "" {
				model = src.Model
			}
			if configured == 0 {
				configured = src.ContextWindow
			}
		}
	}
	if configured > 0 {
		return configured, model
	}
	return WindowFor(model), model
}

// EstimateTokens is a cheap upper-leaning estimate of the tokens of s:
// each CJK character (Han, kana, hangul) counts one token, other text one
// token per four bytes. Tokenizers differ; this errs on the side of more.
func EstimateTokens(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		if r < 0x2E80 {
			other += utf8.RuneLen(r) // len(string(r))
			continue
		}
		if unicode.Is(unicode.Han, r) || unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
			(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF) {
			cjk++
			continue
		}
		other += utf8.RuneLen(r)
	}
	return cjk + (other+3)/4
}

// messageTokens estimates one message as sent, with the few tokens of
// framing every message costs.
func messageTokens(m llm.Message) int {
	n := 4 + EstimateTokens(m.Content)
	for _, c := range m.ToolCalls {
		n += 4 + EstimateTokens(c.Function.Name) + EstimateTokens(c.Function.Arguments)
	}
	return n + len(m.Images)*imageTokens
}

func messagesTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += messageTokens(m)
	}
	return n
}

// toolsTokens estimates the tool list sent with a request.
func toolsTokens(specs []llm.ToolSpec) int {
	n := 0
	for _, s := range specs {
		n += 8 + EstimateTokens(s.Function.Name) + EstimateTokens(s.Function.Description) + (len(s.Function.Parameters)+3)/4
	}
	return n
}

// answerReserve is the part of a window kept for the answer.
func answerReserve(window int) int { return min(4096, window/4) }

// ErrInputTooLong means a message cannot fit the model's context window
// even without any history. It is not stored.
var ErrInputTooLong = errors.New("the message is too long for the model's context window")

// ErrContextTooLong means the provider refused a request as longer than
// the model's context window, even after the history was left out.
var ErrContextTooLong = errors.New("the conversation is too long for the model's context window")

// isContextError reports whether err is a provider's "context length
// exceeded" refusal.
func isContextError(err error) bool {
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || (apiErr.Status != http.StatusBadRequest && apiErr.Status != http.StatusRequestEntityTooLarge && apiErr.Status != 0) {
		return false
	}
	msg := strings.ToLower(apiErr.Message + " " + apiErr.Type)
	for _, s := range []string{"context length", "context_length", "context window", "maximum context", "too many tokens",
		"prompt is too long", "input is too long", "exceeds the maximum", "reduce the length", "token limit", "上下文"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return apiErr.Status == http.StatusRequestEntityTooLarge
}

// contextError describes a provider's context refusal without wrapping
// the provider's error: the model's name is not the problem.
func contextError(model string, window int, err error) error {
	var apiErr *llm.APIError
	detail := err.Error()
	if errors.As(err, &apiErr) {
		detail = apiErr.Message
	}
	return fmt.Errorf("%w (%s, about %d tokens; set \"context_window\" of the source in config.json if that is wrong): "+
		"the provider said %q. Start a new conversation with /new, or send less at once",
		ErrContextTooLong, model, window, detail)
}

// splitRequest returns the bounds of the history in msgs: after the
// leading system messages, before the last user message (the new one,
// followed by plugin context).
func splitRequest(msgs []llm.Message) (from, to int) {
	for from < len(msgs) && msgs[from].Role == "system" {
		from++
	}
	to = len(msgs)
	for i := len(msgs) - 1; i >= from; i-- {
		if msgs[i].Role == "user" {
			to = i
			break
		}
	}
	if to == len(msgs) {
		to = from // no user message: nothing counts as history
	}
	return from, to
}

// withoutHistory returns msgs without the history.
func withoutHistory(msgs []llm.Message) []llm.Message {
	from, to := splitRequest(msgs)
	return append(msgs[:from:from], msgs[to:]...)
}

// fitRequest leaves out the oldest turns of the history in msgs until msgs
// and extra tokens fit within budget. It cuts only before a user message,
// so no tool result loses its call; msgs is not modified.
func fitRequest(msgs []llm.Message, extra, budget int) []llm.Message {
	total := extra + messagesTokens(msgs)
	if total <= budget {
		return msgs
	}
	from, to := splitRequest(msgs)
	cut := from
	for cut < to && total > budget {
		total -= messageTokens(msgs[cut])
		cut++
		for cut < to && msgs[cut].Role != "user" {
			total -= messageTokens(msgs[cut])
			cut++
		}
	}
	return append(msgs[:from:from], msgs[cut:]...)
}
