package terminal

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
)

// The line of a running tool that reports progress:
//
//	… mcp-x__long 3/10 Processing… 4 s
//
// On a terminal (color) it is one line rewritten in place, cleared before
// whatever comes next; on a plain stream each report would be a line of
// its own, so there a call's reports are printed at most once a second.

// clearLine returns the cursor to the start of the line and erases it.
const clearLine = "\r\x1b[K"

// plainProgressEvery is how often a plain stream prints a call's progress.
const plainProgressEvery = time.Second

// toolProgress tracks the running calls for their progress lines.
type toolProgress struct {
	started map[string]time.Time // by call id, from EventToolStart
	printed map[string]time.Time // a plain stream's last line per call
	open    bool                 // a progress line is on the screen (color)
}

func (r *renderer) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// toolStarted notes when a call began, for its elapsed time.
func (r *renderer) toolStarted(ev kernel.Event) {
	if r.progress.started == nil {
		r.progress.started = map[string]time.Time{}
	}
	r.progress.started[ev.CallID] = r.clock()
}

// toolEnded forgets the call and clears its progress line.
func (r *renderer) toolEnded(ev kernel.Event) {
	delete(r.progress.started, ev.CallID)
	delete(r.progress.printed, ev.CallID)
	r.clearProgress()
}

// clearProgress erases the progress line, if one is on the screen.
func (r *renderer) clearProgress() {
	r.live = nil
	if r.progress.open {
		fmt.Fprint(r.out, clearLine)
		r.progress.open, r.lineOpen = false, false
	}
}

// showProgress renders an EventToolProgress.
func (r *renderer) showProgress(ev kernel.Event) {
	if !r.streamText {
		return
	}
	now := r.clock()
	line := "… " + progressLine(ev, now.Sub(r.progress.started[ev.CallID]))
	if r.color {
		began := r.progress.started[ev.CallID]
		r.setLive(now, func(now time.Time) string { return progressLine(ev, now.Sub(began)) })
		return
	}
	if last, ok := r.progress.printed[ev.CallID]; ok && now.Sub(last) < plainProgressEvery {
		return
	}
	if r.progress.printed == nil {
		r.progress.printed = map[string]time.Time{}
	}
	r.progress.printed[ev.CallID] = now
	r.newline()
	r.write(line + "\n")
}

// progressLine is "tool 3/10 message 4 s": the total only when known, the
// elapsed time once it is a second or more.
func progressLine(ev kernel.Event, elapsed time.Duration) string {
	s := SanitizeLine(ev.Tool) + " " + strconv.FormatFloat(ev.Done, 'f', -1, 64)
	if ev.Total > 0 {
		s += "/" + strconv.FormatFloat(ev.Total, 'f', -1, 64)
	}
	if msg := shorten(ev.Text, 80); msg != "" {
		s += " " + msg
	}
	if elapsed >= time.Second {
		s += fmt.Sprintf(" %d s", int(elapsed/time.Second))
	}
	return s
}
