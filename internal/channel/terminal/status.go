package terminal

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
)

// What the terminal says while a turn has nothing else to show, and what
// the turn cost once it is over:
//
//	… thinking / 思考中                      (a terminal only, until the next event)
//	… 429 rate limited, retrying in 2 s       (every stream)
//	  ✓ files__read (3 s) 12 lines           (the tool's line, with its time)
//	1,234 in · 1,000 cached · 56 out · $0.0004
//
// The status lines of a terminal are rewritten in place, like a tool's
// progress line (progress.go), and cleared by whatever comes next.

// thinkingLine is shown while the model has not begun answering.
const thinkingLine = "… thinking / 思考中"

// thinking shows that the model is working on an answer; on a plain
// stream it shows nothing, since the line could not be taken back.
func (r *renderer) thinking() {
	if !r.color || !r.streamText {
		return
	}
	r.status(thinkingLine)
}

// status puts line on the terminal's status line, replacing what was
// there.
func (r *renderer) status(line string) {
	if !r.progress.open {
		r.newline()
	}
	fmt.Fprint(r.out, clearLine)
	r.write(r.style(dim, line))
	r.progress.open = true
}

// showRetry renders an EventRetry: on a terminal on the status line, on
// a plain stream as a line of its own.
func (r *renderer) showRetry(ev kernel.Event) {
	if !r.streamText {
		return
	}
	line := "… " + SanitizeLine(ev.Text)
	if r.color {
		r.status(line)
		return
	}
	r.newline()
	r.write(line + "\n")
}

// elapsed is how long the call has run, as " (4 s)", or "" under a
// second or when its start is unknown.
func (r *renderer) elapsed(callID string) string {
	began, ok := r.progress.started[callID]
	if !ok {
		return ""
	}
	d := r.clock().Sub(began)
	if d < time.Second {
		return ""
	}
	return fmt.Sprintf(" (%d s)", int(d/time.Second))
}

// usage shows a turn's usage line, dim, when the provider reported any.
func (r *renderer) usage(u llm.Usage, price *llm.Price) {
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return
	}
	r.newline()
	r.write(r.style(dim, UsageLine(u, price)) + "\n")
}

// UsageLine is "1,234 in · 1,000 cached · 56 out · $0.0004": the tokens
// of a turn, and its price when the model's price is known (price.Cost).
// Cached is left out when no prompt token came from the cache.
func UsageLine(u llm.Usage, price *llm.Price) string {
	parts := []string{thousands(u.PromptTokens) + " in"}
	if u.CachedTokens > 0 {
		parts = append(parts, thousands(u.CachedTokens)+" cached")
	}
	parts = append(parts, thousands(u.CompletionTokens)+" out")
	if price != nil {
		parts = append(parts, money(price.Cost(u), price.CurrencyCode()))
	}
	return strings.Join(parts, " · ")
}

// money shows an amount with four decimals (a turn often costs less than
// a cent), as $ for USD and with the code after it otherwise.
func money(v float64, currency string) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	if currency == "USD" {
		return "$" + s
	}
	return s + " " + currency
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// turnPrice is the price of the current source's model, or nil when
// there is no source here (a daemon's chat) or its price is not known.
func turnPrice(s *llm.Sources) *llm.Price {
	src, ok := currentSource(s)
	if !ok {
		return nil
	}
	p, ok := llm.PriceOf(src, "")
	if !ok {
		return nil
	}
	return &p
}
