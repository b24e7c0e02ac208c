package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/store"
)

const usageHelp = `Usage: hearth usage [day|session|source|model|plugin] [--since DURATION] [--json]

Shows what model calls used and cost, summed by day (the default),
session, source, model or plugin, from the usage ledger: tokens in
(cached among them), tokens out, and cost in each price's currency ("-"
for calls whose price is not known). Then today's spending against the
budgets of config.json.

Flags:
  --since DURATION  only calls this recent (90s, 30m, 24h, 7d)
  --json            print {"by", "totals": [...], "today": {...}}

Examples:
  hearth usage
  hearth usage source --since 24h
  hearth usage session --json | jq '.totals[0]'
`

// usageJSON is what `hearth usage --json` prints.
type usageJSON struct {
	By      string             `json:"by"`
	Totals  []store.UsageTotal `json:"totals"`
	Budgets *llm.Budgets       `json:"budgets,omitempty"`
	Today   struct {
		Day    string             `json:"day"`
		Tokens int64              `json:"tokens"`
		Money  map[string]float64 `json:"money"`
	} `json:"today"`
}

func runUsage(ctx context.Context, a *app.App, f *flags, rest []string, stdout, stderr io.Writer) int {
	rep := usageJSON{By: "day", Budgets: a.Kernel.Budgets()}
	switch len(rest) {
	case 0:
	case 1:
		rep.By = rest[0]
	default:
		fmt.Fprintf(stderr, "hearth usage: one grouping at most, got %q\n", strings.Join(rest, " "))
		return 2
	}
	if _, ok := store.UsageGroups[rep.By]; !ok {
		fmt.Fprintf(stderr, "hearth usage: cannot sum by %q: day, session, source, model or plugin\n", rep.By)
		return 2
	}
	var since time.Time
	if f.since > 0 {
		since = time.Now().Add(-f.since)
	}
	var err error
	if rep.Totals, err = a.Store.UsageTotals(ctx, rep.By, since, time.Time{}); err != nil {
		fmt.Fprintf(stderr, "hearth usage: %v\n", err)
		return 1
	}
	rep.Today.Day = rep.Budgets.DayOf(time.Now())
	if rep.Today.Tokens, rep.Today.Money, err = a.Store.UsageSpent(ctx, rep.Today.Day, 0); err != nil {
		fmt.Fprintf(stderr, "hearth usage: %v\n", err)
		return 1
	}
	if f.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return 1
		}
		return 0
	}
	if len(rep.Totals) == 0 {
		fmt.Fprintln(stdout, "(no model calls recorded)")
	} else {
		tab := &table{}
		tab.row(strings.ToUpper(rep.By), "CALLS", "IN", "CACHED", "OUT", "COST")
		for _, t := range rep.Totals {
			cost := "-"
			if t.Calls > t.Unpriced {
				cost = fmt.Sprintf("%.4f %s", t.Cost, t.Currency)
			}
			if t.Unpriced > 0 && t.Calls > t.Unpriced {
				cost += fmt.Sprintf(" (+%d unpriced)", t.Unpriced)
			}
			key := t.Key
			if key == "" {
				key = "-"
			}
			if t.Label != "" {
				key += " " + t.Label // the session's channel and chat
			}
			tab.row(key, strconv.FormatInt(t.Calls, 10), strconv.FormatInt(t.InputTokens, 10), strconv.FormatInt(t.CachedTokens, 10),
				strconv.FormatInt(t.OutputTokens, 10), cost)
		}
		tab.write(stdout)
	}
	fmt.Fprintf(stdout, "\ntoday (%s): %d tokens", rep.Today.Day, rep.Today.Tokens)
	for _, cur := range slices.Sorted(maps.Keys(rep.Today.Money)) {
		fmt.Fprintf(stdout, ", %.4f %s", rep.Today.Money[cur], cur)
	}
	fmt.Fprintln(stdout)
	if b := rep.Budgets; b != nil {
		for _, l := range []struct {
			name string
			l    *llm.Limit
		}{{"day", b.Day}, {"session", b.Session}} {
			if l.l == nil {
				continue
			}
			var parts []string
			if l.l.Tokens > 0 {
				parts = append(parts, fmt.Sprintf("%d tokens", l.l.Tokens))
			}
			if m := l.l.Money; m != nil {
				parts = append(parts, fmt.Sprintf("%g %s", m.Amount, strings.ToUpper(m.Currency)))
			}
			fmt.Fprintf(stdout, "budget per %s: %s\n", l.name, strings.Join(parts, ", "))
		}
	}
	return 0
}
