package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// wireServer answers each path with its status and body, and records
// the headers of the requests it got.
func wireServer(t *testing.T, routes map[string]struct {
	status int
	body   string
}) (*httptest.Server, *[]*http.Request) {
	t.Helper()
	var got []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Clone(context.Background()))
		rt, ok := routes[r.URL.Path+"?"+r.URL.RawQuery]
		if !ok {
			rt, ok = routes[r.URL.Path]
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rt.status)
		_, _ = w.Write([]byte(rt.body))
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

type route = struct {
	status int
	body   string
}

func ids(ms []sdk.ProviderModel) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func TestListModelsWireFormats(t *testing.T) {
	ctx := context.Background()
	t.Run("openai", func(t *testing.T) {
		srv, got := wireServer(t, map[string]route{
			"/v1/models": {200, `{"object":"list","data":[{"id":"deepseek-chat","object":"model"},{"id":"deepseek-reasoner"}]}`},
		})
		ms, err := ListModelsOpenAI(ctx, sdk.ProviderConfig{BaseURL: srv.URL + "/v1", Credential: "sk-test-0123456789"})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"deepseek-chat", "deepseek-reasoner"}; !reflect.DeepEqual(ids(ms), want) {
			t.Fatalf("models %v, want %v", ids(ms), want)
		}
		if h := (*got)[0].Header.Get("Authorization"); h != "Bearer sk-test-0123456789" {
			t.Fatalf("Authorization %q", h)
		}
	})
	t.Run("anthropic pages", func(t *testing.T) {
		srv, got := wireServer(t, map[string]route{
			"/v1/models?limit=1000":                          {200, `{"data":[{"id":"claude-opus-4-5","display_name":"Claude Opus 4.5"}],"has_more":true,"last_id":"claude-opus-4-5"}`},
			"/v1/models?limit=1000&after_id=claude-opus-4-5": {200, `{"data":[{"id":"claude-haiku-4-5","display_name":"Claude Haiku 4.5"}],"has_more":false,"last_id":"claude-haiku-4-5"}`},
		})
		ms, err := ListModelsAnthropic(ctx, sdk.ProviderConfig{BaseURL: srv.URL, Credential: "sk-ant-test-0123456789"})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"claude-opus-4-5", "claude-haiku-4-5"}; !reflect.DeepEqual(ids(ms), want) || ms[0].Name != "Claude Opus 4.5" {
			t.Fatalf("models %+v, want %v", ms, want)
		}
		r := (*got)[0]
		if r.Header.Get("x-api-key") != "sk-ant-test-0123456789" || r.Header.Get("anthropic-version") == "" || r.Header.Get("Authorization") != "" {
			t.Fatalf("headers %v", r.Header)
		}
	})
	t.Run("ollama", func(t *testing.T) {
		srv, _ := wireServer(t, map[string]route{
			"/api/tags": {200, `{"models":[{"name":"qwen3:8b","model":"qwen3:8b","size":5200000000},{"name":"llama3.2:latest","model":"llama3.2:latest"}]}`},
		})
		ms, err := ListModelsOllama(ctx, sdk.ProviderConfig{BaseURL: srv.URL + "/v1"})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"qwen3:8b", "llama3.2:latest"}; !reflect.DeepEqual(ids(ms), want) {
			t.Fatalf("models %v, want %v", ids(ms), want)
		}
	})
}

func TestBalanceWireFormats(t *testing.T) {
	ctx := context.Background()
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name  string
		fn    func(context.Context, sdk.ProviderConfig) (sdk.ProviderAccount, error)
		base  string // appended to the server's address
		path  string
		body  string
		want  sdk.ProviderAccount
		wantE string
	}{
		{name: "deepseek", fn: BalanceDeepSeek, base: "/v1", path: "/user/balance",
			body: `{"is_available":true,"balance_infos":[{"currency":"CNY","total_balance":"110.00","granted_balance":"10.00","topped_up_balance":"100.00"}]}`,
			want: sdk.ProviderAccount{Available: true, Balances: []sdk.ProviderBalance{{Currency: "CNY", Total: 110, Granted: f(10), ToppedUp: f(100)}}}},
		{name: "deepseek bad amount", fn: BalanceDeepSeek, path: "/user/balance",
			body:  `{"is_available":true,"balance_infos":[{"currency":"CNY","total_balance":"lots"}]}`,
			wantE: `"lots" is not an amount`},
		{name: "kimi", fn: BalanceKimi, base: "/v1", path: "/v1/users/me/balance",
			body: `{"code":0,"data":{"available_balance":49.58894,"voucher_balance":46.58893,"cash_balance":3.00001},"scode":"0x0","status":true}`,
			want: sdk.ProviderAccount{Available: true, Balances: []sdk.ProviderBalance{{Currency: "CNY", Total: 49.58894, Granted: f(46.58893), ToppedUp: f(3.00001)}}}},
		{name: "kimi error code", fn: BalanceKimi, base: "/v1", path: "/v1/users/me/balance",
			body: `{"code":5,"status":false}`, wantE: "code 5"},
		{name: "siliconflow", fn: BalanceSiliconFlow, base: "/v1", path: "/v1/user/info",
			body: `{"code":20000,"message":"OK","status":true,"data":{"id":"u1","name":"n","balance":"0.88","chargeBalance":"88.00","totalBalance":"88.88"}}`,
			want: sdk.ProviderAccount{Available: true, Balances: []sdk.ProviderBalance{{Currency: "CNY", Total: 88.88, Granted: f(0.88), ToppedUp: f(88)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := wireServer(t, map[string]route{tt.path: {200, tt.body}})
			acc, err := tt.fn(ctx, sdk.ProviderConfig{BaseURL: srv.URL + tt.base, Credential: "sk-test-0123456789"})
			if tt.wantE != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantE) {
					t.Fatalf("err %v, want one with %q", err, tt.wantE)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(acc, tt.want) {
				t.Fatalf("account %+v, want %+v", acc, tt.want)
			}
		})
	}
}

func TestCatalogRejectedKeyIsMasked(t *testing.T) {
	const key = "sk-secret-abcdef0123456789"
	srv, _ := wireServer(t, map[string]route{
		"/v1/models":    {401, `{"error":{"message":"Incorrect API key provided: ` + key + `","type":"invalid_request_error"}}`},
		"/user/balance": {403, `{"message":"bad key ` + key + `"}`},
	})
	cfg := sdk.ProviderConfig{BaseURL: srv.URL + "/v1", Credential: key}
	_, err := ListModelsOpenAI(context.Background(), cfg)
	if !errors.Is(err, ErrAuth) || strings.Contains(err.Error(), "abcdef0123456789") {
		t.Fatalf("list: err %v, want ErrAuth without the key", err)
	}
	_, err = BalanceDeepSeek(context.Background(), cfg)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 403 || strings.Contains(err.Error(), "abcdef0123456789") {
		t.Fatalf("balance: err %v, want a 403 APIError without the key", err)
	}
}

func TestCatalogBadAnswers(t *testing.T) {
	srv, _ := wireServer(t, map[string]route{
		"/v1/models": {200, `<html>not json</html>`},
		"/api/tags":  {500, `boom`},
	})
	if _, err := ListModelsOpenAI(context.Background(), sdk.ProviderConfig{BaseURL: srv.URL + "/v1"}); err == nil ||
		!strings.Contains(err.Error(), "not the expected JSON") {
		t.Fatalf("html answer: err %v", err)
	}
	var apiErr *APIError
	if _, err := ListModelsOllama(context.Background(), sdk.ProviderConfig{BaseURL: srv.URL}); !errors.As(err, &apiErr) || apiErr.Status != 500 {
		t.Fatalf("500 answer: err %v", err)
	}
	// A closed port: a connection error, not a panic or a hang.
	closed := httptest.NewServer(http.NotFoundHandler())
	addr := closed.URL
	closed.Close()
	if _, err := ListModelsOpenAI(context.Background(), sdk.ProviderConfig{BaseURL: addr}); err == nil {
		t.Fatal("closed port: no error")
	}
}

func TestCatalogFuncsByAddress(t *testing.T) {
	for base, want := range map[string]bool{
		"https://api.deepseek.com/v1": true, "https://api.moonshot.cn/v1": true, "https://api.moonshot.ai/v1": true,
		"https://api.siliconflow.cn/v1": true, "https://api.openai.com/v1": false, "http://127.0.0.1:11434/v1": false, "::bad": false,
	} {
		if got := BalanceFunc(base) != nil; got != want {
			t.Errorf("BalanceFunc(%q) set = %v, want %v", base, got, want)
		}
	}
	if reflect.ValueOf(ListModelsFunc("", "http://127.0.0.1:11434/v1")).Pointer() != reflect.ValueOf(ListModelsOllama).Pointer() ||
		reflect.ValueOf(ListModelsFunc(APIAnthropic, "https://api.anthropic.com")).Pointer() != reflect.ValueOf(ListModelsAnthropic).Pointer() ||
		reflect.ValueOf(ListModelsFunc("", "https://api.deepseek.com/v1")).Pointer() != reflect.ValueOf(ListModelsOpenAI).Pointer() {
		t.Fatal("ListModelsFunc picked the wrong wire format")
	}
}

func FuzzBalanceDeepSeek(f *testing.F) {
	f.Add(`{"is_available":true,"balance_infos":[{"currency":"CNY","total_balance":"1.5"}]}`)
	f.Add(`{"balance_infos":[{"total_balance":"NaN"}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(body))
		}))
		defer srv.Close()
		acc, err := BalanceDeepSeek(context.Background(), sdk.ProviderConfig{BaseURL: srv.URL})
		if err == nil {
			for _, b := range acc.Balances {
				if b.Total != b.Total {
					t.Fatalf("NaN total from %q", body)
				}
			}
		}
	})
}

func TestKnownPriceFallsBackToPresets(t *testing.T) {
	p, ok := KnownPrice("kimi-k2-0905-preview")
	if !ok || p.CurrencyCode() != "CNY" || p.Input != 4 || p.CachedInput != 1 || p.Output != 16 {
		t.Fatalf("kimi: %+v %v", p, ok)
	}
	if p, ok := KnownPrice("Qwen/Qwen2.5-7B-Instruct"); !ok || p.Output != 0 {
		t.Fatalf("siliconflow path id: %+v %v", p, ok)
	}
	// DeepSeek is priced in yuan, as its preset lists (there is one table).
	if p, ok := KnownPrice("deepseek-chat"); !ok || p.CurrencyCode() != "CNY" || p.Input != 2 {
		t.Fatalf("deepseek-chat: %+v %v", p, ok)
	}
	if _, ok := KnownPrice("no-such-model"); ok {
		t.Fatal("a price for an unknown model")
	}
}

// FuzzCatalogAnswers feeds every listing and balance decoder arbitrary
// answers: none panics, and an account without error has finite totals.
func FuzzCatalogAnswers(f *testing.F) {
	f.Add(uint8(0), `{"data":[{"id":"a"}]}`)
	f.Add(uint8(1), `{"data":[{"id":"a","display_name":"A"}],"has_more":true,"last_id":"a"}`)
	f.Add(uint8(2), `{"models":[{"name":"q:8b"}]}`)
	f.Add(uint8(3), `{"code":0,"data":{"available_balance":1,"voucher_balance":0,"cash_balance":1}}`)
	f.Add(uint8(4), `{"data":{"balance":"1","chargeBalance":"2","totalBalance":"3"}}`)
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(body))
		}))
		defer srv.Close()
		cfg := sdk.ProviderConfig{BaseURL: srv.URL + "/v1"}
		var acc sdk.ProviderAccount
		var err error
		switch which % 5 {
		case 0:
			_, err = ListModelsOpenAI(context.Background(), cfg)
		case 1:
			_, err = ListModelsAnthropic(context.Background(), cfg)
		case 2:
			_, err = ListModelsOllama(context.Background(), cfg)
		case 3:
			acc, err = BalanceKimi(context.Background(), cfg)
		case 4:
			acc, err = BalanceSiliconFlow(context.Background(), cfg)
		}
		if err == nil {
			for _, b := range acc.Balances {
				if b.Total != b.Total {
					t.Fatalf("NaN total from %q", body)
				}
			}
		}
	})
}
