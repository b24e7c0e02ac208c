package server

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

func TestUsage(t *testing.T) {
	llm := llmtest.NewServer(t, llmtest.Reply{Text: "hello", Usage: &llmtest.Usage{Prompt: 1000, Completion: 200, Cached: 400}},
		llmtest.Reply{Text: "again", Usage: &llmtest.Usage{Prompt: 2200, Completion: 100}})
	cfg := `{"sources": {"ds": {"base_url": "` + llm.URL + `", "api_key": "sk-test-0123456789", "model": "m",
		"price": {"input": 2, "output": 8, "cached_input": 0.5, "currency": "CNY"}}},
		"budgets": {"day": {"tokens": 100000}, "zone": "Asia/Shanghai"}}`
	a := appWithConfig(t, cfg)
	for _, chat := range []string{"c1", "c2"} {
		if out := a.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "web", ChatID: chat, UserID: "owner", Text: "hi"}}); out.Err != nil {
			t.Fatal(out.Err)
		}
	}
	_, hs := newTestServer(t, a)

	var rep UsageReport
	if code := getJSON(t, hs.URL, "/v1/usage?by=session", &rep); code != http.StatusOK {
		t.Fatalf("by session: %d", code)
	}
	// By hand: 600 fresh at 2, 400 cached at 0.5, 200 out at 8 per million;
	// then 2200 at 2 and 100 at 8.
	first, second := (600*2+400*0.5+200*8)/1e6, (2200*2+100*8)/1e6
	if len(rep.Totals) != 2 || rep.Totals[0].InputTokens != 2200 || rep.Totals[1].CachedTokens != 400 ||
		!near(rep.Totals[0].Cost, second) || !near(rep.Totals[1].Cost, first) || rep.Totals[0].Currency != "CNY" {
		t.Fatalf("by session: %+v", rep.Totals)
	}
	if rep.Budgets == nil || rep.Budgets.Day.Tokens != 100000 || rep.Today.Tokens != 3500 || !near(rep.Today.Money["CNY"], first+second) {
		t.Fatalf("budgets %+v, today %+v", rep.Budgets, rep.Today)
	}
	// Sums come without float noise: 0.003 + 0.0052 is 0.0082, not
	// 0.008199999999999999.
	var raw json.RawMessage
	if code := getJSON(t, hs.URL, "/v1/usage?by=day", &raw); code != http.StatusOK ||
		!strings.Contains(string(raw), `"cost":0.0082,`) || !strings.Contains(string(raw), `"money":{"CNY":0.0082}`) {
		t.Fatalf("by day: %d %s", code, raw)
	}
	if code := getJSON(t, hs.URL, "/v1/usage?by=day&from=2000-01-01&until=2000-01-02", &rep); code != http.StatusOK || len(rep.Totals) != 0 {
		t.Fatalf("an empty range: %d %+v", code, rep.Totals)
	}
	if code := getJSON(t, hs.URL, "/v1/usage?by=weekday", nil); code != http.StatusUnprocessableEntity {
		t.Fatalf("by=weekday: %d", code)
	}
	if code := getJSON(t, hs.URL, "/v1/usage?from=yesterday", nil); code != http.StatusUnprocessableEntity {
		t.Fatalf("from=yesterday: %d", code)
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// A key the provider refused is marked across a restart; a passing test
// of the same key through the providers API clears the mark.
func TestRejectedKeyClearedByTest(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Reply{Status: http.StatusUnauthorized, ErrorMessage: "invalid key"}, llmtest.Reply{Text: "OK"})
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	if resp := sendAPI(t, "PUT", hs.URL+"/v1/providers/local", `{"base_url":"`+fake.URL+`","model":"m1","api_key":"sk-test-0123456789abcd"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %d", resp.StatusCode)
	}
	out := a.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "web", ChatID: "c", UserID: "owner", Text: "hi"}})
	if out.Err == nil || !strings.Contains(out.Err.Error(), "rejected its API key") {
		t.Fatalf("turn: %+v", out)
	}
	if marks, err := a.Store.RejectedKeys(context.Background()); err != nil || len(marks) != 1 || marks[0].Source != "local" {
		t.Fatalf("marks %+v, %v", marks, err)
	}
	list := answerAs[ProviderList](t, sendAPI(t, "GET", hs.URL+"/v1/providers", ""), http.StatusOK)
	if len(list.Providers) != 1 || list.Providers[0].Rejected != "401 unauthorized" {
		t.Fatalf("the list does not say the key was refused: %+v", list.Providers)
	}
	test := answerAs[ProviderTest](t, sendAPI(t, "POST", hs.URL+"/v1/providers/local/test", ""), http.StatusOK)
	if !test.OK {
		t.Fatalf("test: %+v", test)
	}
	if _, marked := a.Sources.Rejected("local"); marked {
		t.Fatal("still marked after a passing test")
	}
	if marks, err := a.Store.RejectedKeys(context.Background()); err != nil || len(marks) != 0 {
		t.Fatalf("stored marks after a passing test: %+v, %v", marks, err)
	}
}

// A source resting after failing says so in the list, with until when.
func TestProvidersSayWhoRests(t *testing.T) {
	down := llmtest.NewServer(t)
	down.SetFallback(llmtest.Reply{Status: http.StatusServiceUnavailable, ErrorMessage: "down"})
	up := llmtest.NewServer(t)
	up.SetFallback(llmtest.Reply{Text: "OK"})
	cfg := `{"source": "a", "fallback": ["b"], "sources": {"a": {"base_url": "` + down.URL + `", "model": "m"},
		"b": {"base_url": "` + up.URL + `", "model": "m"}}}`
	a := appWithConfig(t, cfg)
	if out := a.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "web", ChatID: "c", UserID: "owner", Text: "hi"}}); out.Err != nil || out.Text != "OK" {
		t.Fatalf("turn: %+v", out)
	}
	_, hs := newTestServer(t, a)
	list := answerAs[ProviderList](t, sendAPI(t, "GET", hs.URL+"/v1/providers", ""), http.StatusOK)
	for _, p := range list.Providers {
		switch {
		case p.Name == "a" && (p.Resting != "503 service unavailable" || p.RestingUntil == nil || !p.RestingUntil.After(time.Now())):
			t.Fatalf("a: %+v", p)
		case p.Name == "b" && (p.Resting != "" || p.RestingUntil != nil):
			t.Fatalf("b: %+v", p)
		}
	}
}

// appWithConfig opens an app on a fresh data folder whose config.json is
// cfg, with no environment.
func appWithConfig(t *testing.T, cfg string) *app.App {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}
