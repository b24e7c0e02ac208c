package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
)

// AskChannel is the channel name of `hearth ask` sessions.
const AskChannel = names.ChannelAsk

// ErrFailed is returned by Ask when the turn did not produce an answer; the
// reason has been printed to Options.Err.
var ErrFailed = errors.New("no answer")

// Ask answers one message: the final answer goes to Out, nothing else does,
// so scripts can use it. Reasoning (with ShowReasoning) and errors go to
// Err. Each call is a fresh conversation unless opts.ChatID names one.
// A text that is a prompt command (/<plugin>:<name> ...) sends the
// prompt's text, in a turn tainted from its start (kernel.Input.Untrusted);
// a missing required argument fails, naming it.
func Ask(ctx context.Context, k Agent, text string, opts *Options) error {
	o := opts.withDefaults()
	text, untrusted, err := askPrompt(ctx, o, text)
	if err != nil {
		fmt.Fprintln(o.Err, Sanitize(err.Error()))
		return ErrFailed
	}
	chat := o.ChatID
	if chat == "" {
		chat = time.Now().UTC().Format("20060102T150405.000000000")
	}
	rend := &renderer{out: o.Out}
	reasoning := &renderer{out: o.Err, showReasoning: o.ShowReasoning, streamText: false}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	// Approvals are asked on the terminal when there is one (the prompt
	// goes to stderr, keeping stdout for the answer); without one, calls
	// that need approval are refused with a note on how to allow them.
	var approver policy.Approver
	if tr, ok := newTTYReader(o.In, o.Err, &history{}); ok {
		defer tr.close()
		approver = tr.approver(&screen{out: o.Err, color: true})
	}
	// On a terminal, stderr says what happens until the answer comes.
	st := askStatus(o.Err)
	onEvent := func(ev kernel.Event) {
		if ev.Kind == kernel.EventRetry {
			// Why the answer is late, on stderr: stdout is the answer's.
			reasoning.endReasoning()
			reasoning.write("… " + SanitizeLine(ev.Text) + "\n")
			return
		}
		if ev.Kind == kernel.EventReasoning {
			reasoning.event(ev)
			return
		}
		// Any other step (the answer's text, a tool call) ends the
		// reasoning's line first, so that the status line drawn after it
		// on a terminal does not overwrite it.
		reasoning.endReasoning()
		rend.event(ev)
	}
	stopTicks := func() {}
	if st != nil {
		stopTicks = st.run()
		approver = st.approver(approver)
		plain := onEvent
		onEvent = func(ev kernel.Event) {
			st.mu.Lock()
			defer st.mu.Unlock()
			st.r.clearProgress()
			plain(ev)
			st.r.askEvent(ev)
		}
	}
	out := k.Ask(ctx, kernel.Input{
		Approver:  approver,
		Untrusted: untrusted, // a prompt's text is a third party's: the turn is tainted
		Injection: sdk.Injection{Source: "terminal", Channel: AskChannel, ChatID: chat, UserID: "owner", Text: text},
		OnEvent:   onEvent,
	})
	stopTicks()
	// The answer is out before anything more goes to Err: where both are
	// one file (2>&1), a writer holding back the answer's tail (the key
	// masking of cmd/hearth) would otherwise let the usage line or the
	// error in first, in the middle of a character.
	flushWriter(o.Out)
	if out.Err != nil {
		if out.Interrupted {
			fmt.Fprintln(o.Err, "interrupted")
		} else {
			src, _ := currentSource(o.Sources)
			msg := Explain(out.Err, src, o.ConfigPath)
			if rend.cut {
				msg = CutMarker + " " + msg
			}
			fmt.Fprintln(o.Err, msg)
		}
		return ErrFailed
	}
	if o.Usage {
		(&renderer{out: o.Err}).usage(out.Usage, out.Cost)
	}
	return nil
}

// flushWriter flushes w when it holds back what it was given (Flush).
func flushWriter(w io.Writer) {
	if f, ok := w.(interface{ Flush() error }); ok {
		_ = f.Flush()
	}
}
