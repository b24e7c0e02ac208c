package terminal

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"golang.org/x/term"
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

// spinner is the frames a terminal's status line turns through, one a
// tick (tickEvery).
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// tickEvery is how often chat redraws the status line on a terminal.
const tickEvery = 200 * time.Millisecond

// live is the status line on a terminal, redrawn by tick: what it says
// at a time.
type live struct {
	text  func(now time.Time) string
	frame int
}

// thinking shows that the model is working on an answer, with how long
// it has been; on a plain stream it shows nothing, since the line could
// not be taken back.
func (r *renderer) thinking() {
	if !r.color || !r.streamText {
		return
	}
	since := r.clock()
	r.setLive(since, func(now time.Time) string { return "thinking / 思考中" + seconds(now.Sub(since)) })
}

// toolRunning shows the call that just started, with how long it runs.
func (r *renderer) toolRunning(ev kernel.Event) {
	if !r.color || !r.streamText {
		return
	}
	since, tool := r.clock(), SanitizeLine(ev.Tool)
	r.setLive(since, func(now time.Time) string { return tool + seconds(now.Sub(since)) })
}

// setLive puts a status line on the terminal, replacing what was there,
// as text says it at now.
func (r *renderer) setLive(now time.Time, text func(now time.Time) string) {
	r.live = &live{text: text}
	r.status("… " + text(now))
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

// tick redraws the live status line with the spinner's next frame and
// the time now. Nothing happens when no status line is shown.
func (r *renderer) tick() {
	l := r.live
	if l == nil || !r.progress.open {
		return
	}
	l.frame = (l.frame + 1) % len(spinner)
	fmt.Fprint(r.out, clearLine)
	r.write(r.style(dim, spinner[l.frame]+" "+l.text(r.clock())))
}

// seconds is " 4 s", or "" under a second.
func seconds(d time.Duration) string {
	if d < time.Second {
		return ""
	}
	return fmt.Sprintf(" %d s", int(d/time.Second))
}

// askStatus returns the status line of `hearth ask` on w, when w is a
// terminal: thinking, a tool running; nil otherwise.
func askStatus(w io.Writer) *liveRenderer {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	r := &renderer{out: w, color: true, streamText: true}
	r.thinking()
	return &liveRenderer{r: r}
}

// askEvent updates ask's status line after ev, which cleared it: a tool
// running, or the model thinking again once a tool is done.
func (r *renderer) askEvent(ev kernel.Event) {
	switch ev.Kind {
	case kernel.EventToolStart:
		r.toolRunning(ev)
	case kernel.EventToolEnd:
		r.thinking()
	}
}

// liveRenderer lets chat's ticker redraw the status line between a
// turn's events: both go through its lock.
type liveRenderer struct {
	mu sync.Mutex
	r  *renderer
}

// event renders ev.
func (l *liveRenderer) event(ev kernel.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.r.event(ev)
}

// run redraws the status line every tickEvery until stop is called.
func (l *liveRenderer) run() (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(tickEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				l.mu.Lock()
				l.r.tick()
				l.mu.Unlock()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		l.mu.Lock()
		l.r.clearProgress()
		l.mu.Unlock()
	}
}

// approver clears the status line while approver asks, and keeps it off
// until the next event, so that nothing is drawn over the question.
func (l *liveRenderer) approver(approver policy.Approver) policy.Approver {
	if approver == nil {
		return nil
	}
	return func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		l.mu.Lock()
		l.r.clearProgress()
		l.mu.Unlock()
		return approver(ctx, req)
	}
}

// showRetry renders an EventRetry: on a terminal on the status line, on
// a plain stream as a line of its own.
func (r *renderer) showRetry(ev kernel.Event) {
	if !r.streamText {
		return
	}
	line := "… " + SanitizeLine(ev.Text)
	if r.color {
		if ev.Retry == nil {
			r.setLive(r.clock(), func(time.Time) string { return SanitizeLine(ev.Text) })
			return
		}
		since, rt := r.clock(), *ev.Retry
		rt.Reason = SanitizeLine(rt.Reason)
		r.setLive(since, func(now time.Time) string {
			left := rt
			left.After = max(0, rt.After-now.Sub(since))
			return left.String()
		})
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
func (r *renderer) usage(u llm.Usage, cost *kernel.Cost) {
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return
	}
	r.newline()
	r.write(r.style(dim, UsageLine(u, cost)) + "\n")
}

// UsageLine is "1,234 in · 1,000 cached · 56 out · $0.0004": the tokens
// of a turn, and its cost when the model's price is known. Cached is
// left out when no prompt token came from the cache.
func UsageLine(u llm.Usage, cost *kernel.Cost) string {
	parts := []string{thousands(u.PromptTokens) + " in"}
	if u.CachedTokens > 0 {
		parts = append(parts, thousands(u.CachedTokens)+" cached")
	}
	parts = append(parts, thousands(u.CompletionTokens)+" out")
	if cost != nil {
		parts = append(parts, money(cost.Amount, cost.Currency))
	}
	return strings.Join(parts, " · ")
}

// money shows an amount with four decimals (a turn often costs less than
// a cent), as $ for USD and with the code after it otherwise.
func money(v float64, currency string) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	if currency == "USD" || currency == "" {
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
