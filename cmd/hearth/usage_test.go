package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// hearth usage sums the calls of earlier runs; a budget set in
// config.json stops hearth ask before the call that would go over it,
// with the reason, and the provider never sees that request.
func TestUsageCommandAndBudget(t *testing.T) {
	home := t.TempDir()
	env := []string{"HEARTH_HOME=" + home}
	if out, _, code := hearth(t, env, "", "usage"); code != 0 || !strings.Contains(out, "(no model calls recorded)") {
		t.Fatalf("empty: %d %q", code, out)
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "one", Usage: &llmtest.Usage{Prompt: 1000, Completion: 100}},
		llmtest.Reply{Text: "two", Usage: &llmtest.Usage{Prompt: 1000, Completion: 100}})
	cfg := `{"sources": {"ds": {"base_url": "` + srv.URL + `", "api_key": "sk-test-0123456789", "model": "m",
		"price": {"input": 2, "output": 8, "currency": "CNY"}}}, "budgets": {"day": {"tokens": 3000}}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := hearth(t, env, "", "ask", "hi"); code != 0 || !strings.Contains(out, "one") {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	// 1100 used; the next call's estimate (1024 output tokens and the
	// prompt) still fits in 3000, the one after does not.
	if _, errOut, code := hearth(t, env, "", "ask", "hi"); code != 0 {
		t.Fatalf("second ask: %d %q", code, errOut)
	}
	_, errOut, code := hearth(t, env, "", "ask", "hi")
	if code == 0 || !strings.Contains(errOut, "the day budget of 3000 tokens would be exceeded (2200 used") || len(srv.Requests()) != 2 {
		t.Fatalf("third ask: %d %q, %d requests", code, errOut, len(srv.Requests()))
	}
	out, errOut, code := hearth(t, env, "", "usage", "source", "--json")
	var rep usageJSON
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("usage --json: %d %v %q %q", code, err, out, errOut)
	}
	if len(rep.Totals) != 1 || rep.Totals[0].Key != "ds" || rep.Totals[0].Calls != 2 || rep.Totals[0].InputTokens != 2000 ||
		rep.Totals[0].Currency != "CNY" || rep.Today.Tokens != 2200 || rep.Budgets == nil || rep.Budgets.Day.Tokens != 3000 {
		t.Fatalf("usage: %+v", rep)
	}
	out, _, code = hearth(t, env, "", "usage")
	if code != 0 || !strings.Contains(out, "0.0056 CNY") || !strings.Contains(out, "budget per day: 3000 tokens") {
		t.Fatalf("usage:\n%s", out)
	}
	if _, errOut, code := hearth(t, env, "", "usage", "weekday"); code != 2 || !strings.Contains(errOut, `cannot sum by "weekday"`) {
		t.Fatalf("usage weekday: %d %q", code, errOut)
	}
}

// TestSinceFormats: --since of usage and audit takes a duration or a
// number of days; anything else is a usage error that names the formats.
func TestSinceFormats(t *testing.T) {
	env := []string{"HEARTH_HOME=" + t.TempDir()}
	for _, cmd := range []string{"usage", "audit"} {
		for _, good := range []string{"90s", "24h", "1h30m", "7d", "0"} {
			if out, errOut, code := hearth(t, env, "", cmd, "--since", good); code != 0 {
				t.Errorf("%s --since %s: %d %q %q", cmd, good, code, out, errOut)
			}
		}
		for _, bad := range []string{"yesterday", "2026-01-01", "1.5d", "-1h", "7x"} {
			_, errOut, code := hearth(t, env, "", cmd, "--since", bad)
			if code != 2 || !strings.Contains(errOut, `"`+bad+`"`) || !strings.Contains(errOut, "90s, 30m, 24h, 1h30m or 7d") {
				t.Errorf("%s --since %s: %d %q", cmd, bad, code, errOut)
			}
		}
	}
}
