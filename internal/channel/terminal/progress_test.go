package terminal

import (
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
)

func TestRenderToolProgress(t *testing.T) {
	start := time.Unix(1000, 0)
	report := kernel.Event{Kind: kernel.EventToolProgress, Tool: "mcp-x__long", CallID: "c1", Done: 3, Total: 10, Text: "Processing…"}
	// The events, shown at start, start, +4 s, +4.2 s, +4.2 s, +4.2 s.
	evs := func() []kernel.Event {
		return []kernel.Event{
			{Kind: kernel.EventToolStart, Tool: "mcp-x__long", CallID: "c1", Args: `{}`},
			report, report, report,
			{Kind: kernel.EventToolProgress, Tool: "mcp-x__long", CallID: "c1", Done: 7, Text: "\x1b[2Jbad"},
			{Kind: kernel.EventToolEnd, Tool: "mcp-x__long", CallID: "c1", Text: "ok"},
		}
	}
	for _, tc := range []struct {
		name  string
		color bool
		want  string
	}{
		{"terminal", true, dim + "→ mcp-x__long {}" + reset + "\n" +
			clearLine + dim + "… mcp-x__long" + reset +
			clearLine + dim + "… mcp-x__long 3/10 Processing…" + reset +
			clearLine + dim + "… mcp-x__long 3/10 Processing… 4 s" + reset +
			clearLine + dim + "… mcp-x__long 3/10 Processing… 4 s" + reset +
			clearLine + dim + "… mcp-x__long 7 ^[[2Jbad 4 s" + reset +
			clearLine + dim + "  ✓ mcp-x__long (4 s) ok" + reset + "\n" +
			clearLine + dim + thinkingLine + reset},
		{"plain stream: once a second", false, "→ mcp-x__long {}\n" +
			"… mcp-x__long 3/10 Processing…\n" +
			"… mcp-x__long 3/10 Processing… 4 s\n" +
			"  ✓ mcp-x__long (4 s) ok\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := evs()
			i := 0
			times := []time.Time{start, start, start.Add(4 * time.Second), start.Add(4200 * time.Millisecond), start.Add(4200 * time.Millisecond), start.Add(4200 * time.Millisecond)}
			r := &renderer{streamText: true, color: tc.color, now: func() time.Time { return times[i] }}
			var got string
			for ; i < len(events); i++ {
				got += render(r, events[i])
			}
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
	// ask shows no progress.
	if got := render(&renderer{}, evs()...); got != "" {
		t.Errorf("ask printed %q", got)
	}
}
