package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/web"
)

// TestBrowserMoney: an answer of a priced source shows its tokens (in,
// cached, out) and its cost in yuan, live and after a reload; the usage
// page shows today's spending against the budgets and the totals by
// source, the ledger's unpriced calls as "unpriced" (未定价 in Chinese),
// not zero; the models page reads a DeepSeek source's balance and
// priced models only when the source is opened, says a source without a
// balance API is not supported, and shows a refused key's error without
// the key.
func TestBrowserMoney(t *testing.T) {
	node := browserReady(t)
	// 1,200 prompt tokens (1,000 cached) and 300 completion tokens at
	// ¥2 / ¥0.5 / ¥8 per million: (200×2 + 1000×0.5 + 300×8) / 1e6 = ¥0.0033.
	model := llmtest.NewServer(t, llmtest.Reply{Text: "The tea is ready.", Usage: &llmtest.Usage{Prompt: 1200, Completion: 300, Cached: 1000}})
	fake := fakeDeepSeek(t)
	var providerCalls atomic.Int64
	counted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		providerCalls.Add(1)
		fake.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(counted.Close)

	dir := t.TempDir()
	cfg := map[string]any{
		"source": "house",
		"sources": map[string]any{
			"house": map[string]any{"base_url": model.URL, "api_key": "sk-house-key-0123456789", "model": "house-model",
				"price": map[string]any{"input": 2, "cached_input": 0.5, "output": 8, "currency": "CNY"}},
			"ds":    map[string]any{"base_url": "http://api.deepseek.com/v1", "api_key": dsKey, "model": "deepseek-chat"},
			"dsbad": map[string]any{"base_url": "http://api.deepseek.com/v1", "api_key": "sk-refused-key-abcdefghijklmnop", "model": "deepseek-chat"},
		},
		"budgets": map[string]any{
			"day":     map[string]any{"tokens": 100000, "money": map[string]any{"amount": 1, "currency": "CNY"}},
			"session": map[string]any{"tokens": 50000},
			"zone":    "UTC",
		},
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, config.FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	// Connections to DeepSeek's real address go to the loopback fake;
	// the scripted model's are left alone, and no other is made.
	fakeAddr := strings.TrimPrefix(counted.URL, "http://")
	modelAddr := strings.TrimSuffix(strings.TrimPrefix(model.URL, "http://"), "/v1")
	a.Sources.HTTP = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, to string) (net.Conn, error) {
			switch to {
			case "api.deepseek.com:80":
				to = fakeAddr
			case modelAddr:
			default:
				t.Errorf("the daemon dialled %s", to)
				return nil, net.UnknownNetworkError("not in this test")
			}
			return (&net.Dialer{}).DialContext(ctx, network, to)
		}}}
	// A call a plugin made today through a source without a price: the
	// ledger has its tokens, not its cost.
	now := time.Now()
	if err := a.Store.RecordUsage(t.Context(), &store.Usage{At: now, Day: a.Config.Budgets.DayOf(now), Source: "local",
		Model: "mystery-model", Plugin: "notes", InputTokens: 500, OutputTokens: 20}); err != nil {
		t.Fatal(err)
	}
	s := New(a, &Options{Token: testToken, UI: web.FS()})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	e := &uiEnv{app: a, url: hs.URL, model: model}

	browse(t, node, e, "money")

	// The page asked DeepSeek only for the sources it opened, ds and
	// dsbad: a balance and a model list each.
	if n := providerCalls.Load(); n != 4 {
		t.Errorf("the provider was called %d times, want 4 (two sources opened, balance and models each)", n)
	}
}
