// Package terminal is the terminal channel: `hearth chat`, an interactive
// chat with streamed output, line editing, history and multi-line input,
// and `hearth ask`, one question answered for scripts.
package terminal

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
)

const (
	dim   = "\x1b[2m"
	red   = "\x1b[31m"
	reset = "\x1b[0m"
)

// renderer shows a turn's events on a terminal or a plain stream.
type renderer struct {
	out           io.Writer
	color         bool
	showReasoning bool
	streamText    bool // print text as it streams (chat) or only the final answer (ask)

	inReasoning bool
	stepText    strings.Builder // text streamed since the last tool call
	lineOpen    bool            // the cursor is not at the start of a line
	cut         bool            // the last turn failed in the middle of an answer

	// The streamed text and reasoning are the model's: neutralised on the
	// way out, across chunk boundaries.
	textStream, reasonStream safeStream

	progress toolProgress     // running calls' progress lines (progress.go)
	live     *live            // the status line a ticker redraws (status.go)
	now      func() time.Time // nil: time.Now
}

// CutMarker marks an answer that broke off where it is shown.
const CutMarker = "[answer cut off / 回答不完整]"

func (r *renderer) style(s, text string) string {
	if !r.color {
		return text
	}
	return s + text + reset
}

func (r *renderer) write(s string) {
	if s == "" {
		return
	}
	io.WriteString(r.out, s)
	r.lineOpen = !strings.HasSuffix(strings.TrimSuffix(s, reset), "\n")
}

func (r *renderer) newline() {
	if r.lineOpen {
		r.write("\n")
	}
}

func (r *renderer) endReasoning() {
	if r.inReasoning {
		r.inReasoning = false
		if rest := r.reasonStream.flush(); rest != "" {
			r.write(r.style(dim, rest))
		}
		r.newline()
	}
}

// endText prints what the text stream still holds.
func (r *renderer) endText() {
	if r.streamText {
		r.write(r.textStream.flush())
	}
}

// event renders one event.
func (r *renderer) event(ev kernel.Event) {
	if ev.Kind != kernel.EventToolProgress {
		r.clearProgress()
	}
	switch ev.Kind {
	case kernel.EventToolProgress:
		r.showProgress(ev)
	case kernel.EventRetry:
		r.showRetry(ev)
	case kernel.EventReasoning:
		if !r.showReasoning {
			return
		}
		if !r.inReasoning {
			r.newline()
			r.inReasoning = true
			r.write(r.style(dim, "💭 "))
		}
		if text := r.reasonStream.write(ev.Text); text != "" {
			r.write(r.style(dim, text))
		}
	case kernel.EventText:
		r.endReasoning()
		r.stepText.WriteString(ev.Text)
		if r.streamText {
			r.write(r.textStream.write(ev.Text))
		}
	case kernel.EventToolStart:
		r.endReasoning()
		r.endText()
		r.newline()
		r.stepText.Reset()
		r.toolStarted(ev)
		if r.streamText {
			r.write(r.style(dim, fmt.Sprintf("→ %s %s", SanitizeLine(ev.Tool), shorten(ev.Args, 120))) + "\n")
			r.toolRunning(ev)
		}
	case kernel.EventToolEnd:
		took := r.elapsed(ev.CallID)
		r.toolEnded(ev)
		if r.streamText {
			mark := "✓"
			if ev.IsError {
				mark = "✗"
			}
			r.write(r.style(dim, fmt.Sprintf("  %s %s%s %s", mark, SanitizeLine(ev.Tool), took, shorten(ev.Text, 160))) + "\n")
			if len(r.progress.started) == 0 {
				r.thinking() // the model reads the results
			}
		}
	case kernel.EventFinal:
		r.endReasoning()
		r.endText()
		if !r.streamText || r.stepText.String() != ev.Text {
			// Not streamed, or a stage rewrote the answer: show the final text.
			r.newline()
			r.write(Sanitize(ev.Text))
		}
		r.newline()
		r.stepText.Reset()
	case kernel.EventInterrupted:
		r.endReasoning()
		r.endText()
		r.newline()
		r.write(r.style(dim, "(interrupted / 已中断)") + "\n")
		r.stepText.Reset()
	case kernel.EventError:
		r.endReasoning()
		// Text of an answer that did not finish is shown as far as it
		// came, marked as cut off (ask marks it on stderr).
		r.endText()
		r.cut = r.stepText.Len() > 0
		if r.cut && r.streamText {
			r.write(r.style(dim, " "+CutMarker))
		} else if r.cut {
			r.write(Sanitize(r.stepText.String()))
		}
		r.newline()
		r.stepText.Reset()
	}
}

// shorten keeps s on one line and at most n runes, neutralising control
// characters; it is for progress lines, never for what the user approves.
func shorten(s string, n int) string {
	s = SanitizeLine(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n]) + "…"
}

// Explain turns a turn's error into a message that tells the user what to
// do. src describes the source in use; configPath is where sources are
// configured. The message is safe to print: what a provider or plugin put
// in the error is neutralised.
func Explain(err error, src llm.Source, configPath string) string {
	return Sanitize(explain(err, src, configPath))
}

func explain(err error, src llm.Source, configPath string) string {
	src.BaseURL = withoutUserinfo(src.BaseURL) // the message reaches the web UI and API clients too
	var apiErr *llm.APIError
	switch {
	case errors.Is(err, llm.ErrNoSource):
		return NoProviderMessage(configPath)
	case errors.Is(err, llm.ErrBudget):
		var be *llm.BudgetError
		scope := "day"
		if errors.As(err, &be) {
			scope = be.Scope
		}
		zh := "已达到今日预算上限，本次模型调用未发出；可调高 config.json 中的 \"budgets\"，或等到明天。"
		if scope == "session" {
			zh = "已达到本会话预算上限，本次模型调用未发出；可调高 config.json 中的 \"budgets\"，或开始新会话（hearth chat 中输入 /new）。"
			return fmt.Sprintf("%v (in hearth chat, /new starts one)\n%s", err, zh)
		}
		if be != nil && be.Unpriced {
			zh = fmt.Sprintf("预算以 %s 计，而该模型来源没有 %s 价格，无法计费；请在 config.json 中为它设置 \"price\"，或取消该预算。", be.Currency, be.Currency)
		}
		return fmt.Sprintf("%v\n%s", err, zh)
	case errors.Is(err, llm.ErrAuth):
		var kr *llm.KeyRejectedError
		name := src.Name
		if errors.As(err, &kr) {
			name = kr.Source // a fallback's, maybe
		}
		where, whereZH := fmt.Sprintf("the key of source %q in %s", name, configPath), "配置文件中该来源的 Key"
		if name == "env" || name == "" {
			where, whereZH = "OPENAI_API_KEY", "OPENAI_API_KEY"
		}
		if kr == nil {
			return fmt.Sprintf("The provider at %s rejected the API key of source %q (%v).\nCheck %s.\n"+
				"模型服务拒绝了 API Key，请检查%s。", src.BaseURL, src.Name, err, where, whereZH)
		}
		return fmt.Sprintf("The provider of source %q rejected the API key (%s); it is not called again until the key changes "+
			"or `hearth models test %s` passes.\nCheck %s.\n"+
			"模型服务拒绝了 API Key（%s），请检查%s；换 Key 或 `hearth models test %s` 通过之前不再调用该来源。",
			name, kr.Reason, name, where, kr.Reason, whereZH, name)
	case errors.As(err, &apiErr) && (apiErr.Status == http.StatusNotFound || apiErr.Status == http.StatusBadRequest) &&
		strings.Contains(strings.ToLower(apiErr.Message), "model"):
		return fmt.Sprintf("%v\nThe model %q may not exist at %s: set it with --model or HEARTH_MODEL.\n"+
			"模型名可能不对，请用 --model 或 HEARTH_MODEL 指定。", err, src.Model, src.BaseURL)
	case strings.Contains(err.Error(), "cannot reach the provider"):
		return fmt.Sprintf("%v\nCheck that %s is the right address (OPENAI_BASE_URL) and that it is reachable.\n"+
			"无法连接模型服务，请检查 OPENAI_BASE_URL。", err, src.BaseURL)
	case errors.Is(err, llm.ErrNotAPI):
		return fmt.Sprintf("%v\n%s 返回的不是模型接口（可能是网页），请检查 OPENAI_BASE_URL，通常以 /v1 结尾。", err, src.BaseURL)
	case errors.Is(err, llm.ErrIncomplete):
		return fmt.Sprintf("%v\nThe answer is incomplete; ask again. / 回答不完整（连接中断或超时），请重试。", err)
	case errors.Is(err, llm.ErrTimeout):
		return fmt.Sprintf("%v\nIf the model is only slow, raise the timeouts of source %q in %s (see docs/configuration.md).\n"+
			"模型服务响应超时；如果只是慢，可以在配置文件中调大超时时间。", err, src.Name, configPath)
	case errors.Is(err, llm.ErrEmptyAnswer):
		return fmt.Sprintf("%v. / 模型返回了空回答。", err)
	case errors.Is(err, llm.ErrTooLarge):
		return fmt.Sprintf("%v\n模型的回答超过了大小上限（max_response_bytes）。", err)
	}
	return err.Error()
}

// NoProviderMessage tells a new user how to configure a model provider.
func NoProviderMessage(configPath string) string {
	return `No model provider is configured. / 还没有配置模型服务。

Set an OpenAI-compatible endpoint and key, for example DeepSeek:

  export OPENAI_BASE_URL=https://api.deepseek.com/v1
  export OPENAI_API_KEY=sk-...
  export HEARTH_MODEL=deepseek-flash     # optional for well-known providers

or a local Ollama:

  export OPENAI_BASE_URL=http://127.0.0.1:11434/v1 HEARTH_MODEL=qwen3:8b

or name several sources in ` + configPath + ` (see docs/configuration.md).`
}

// withoutUserinfo drops a user name and password written into a URL
// (https://user:secret@host/v1), which the sources' masking does not
// know of; anything that does not parse is kept as it is.
func withoutUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}
