package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk"
)

const dsKey = "sk-deepseek-secret-0123456789abcdef"

// fakeDeepSeek speaks DeepSeek's GET /v1/models and GET /user/balance,
// accepting only dsKey.
func fakeDeepSeek(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "); key != dsKey {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"Authentication Fails, Your api key: ` + key + ` is invalid","type":"authentication_error"}}`))
			return
		}
		switch r.URL.Path {
		case "/v1/models":
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"deepseek-chat"},{"id":"deepseek-new"},{"id":"deepseek-flash"}]}`))
		case "/user/balance":
			_, _ = w.Write([]byte(`{"is_available":true,"balance_infos":[{"currency":"CNY","total_balance":"110.00","granted_balance":"10.00","topped_up_balance":"100.00"}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSourceModelsAndBalance saves a source at DeepSeek's real address
// whose connections the daemon's HTTP client sends to a loopback server
// speaking DeepSeek's wire format: the models come back priced from the
// preset, the balance is read, and a wrong key is explained, masked.
func TestSourceModelsAndBalance(t *testing.T) {
	fake := fakeDeepSeek(t)
	a := newTestApp(t)
	addr := strings.TrimPrefix(fake.URL, "http://")
	a.Sources.HTTP = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}}}
	_, hs := newTestServer(t, a)
	var seen strings.Builder

	for name, key := range map[string]string{"ds": dsKey, "bad": "sk-wrong-key-abcdefghijklmnop"} {
		put := sendAPI(t, "PUT", hs.URL+"/v1/providers/"+name, `{"base_url":"http://api.deepseek.com/v1","api_key":"`+key+`"}`)
		if recordBody(t, put, &seen); put.StatusCode != http.StatusOK {
			t.Fatalf("PUT %s: %d", name, put.StatusCode)
		}
	}

	ms := answerAs[SourceModels](t, sendAPI(t, "GET", hs.URL+"/v1/providers/ds/models", ""), http.StatusOK)
	if !ms.Listed || len(ms.Models) != 3 || ms.Models[0].ID != "deepseek-chat" || ms.Models[0].Pricing == nil ||
		ms.Models[0].Pricing.Currency != "CNY" || ms.Models[1].Pricing != nil || ms.Models[2].Pricing == nil || ms.Models[2].Pricing.Peak == nil {
		t.Fatalf("models %+v", ms)
	}
	bal := answerAs[SourceBalance](t, sendAPI(t, "GET", hs.URL+"/v1/providers/ds/balance", ""), http.StatusOK)
	if !bal.OK || !bal.Supported || bal.Account == nil || bal.Account.Balances[0].Total != 110 || *bal.Account.Balances[0].Granted != 10 {
		t.Fatalf("balance %+v", bal)
	}

	bad := sendAPI(t, "GET", hs.URL+"/v1/providers/bad/models", "")
	body := recordBody(t, bad, &seen)
	if bad.StatusCode != http.StatusOK || !strings.Contains(body, `"listed":false`) || !strings.Contains(body, `"error"`) {
		t.Fatalf("bad key models: %d %s", bad.StatusCode, body)
	}
	badBal := sendAPI(t, "GET", hs.URL+"/v1/providers/bad/balance", "")
	body = recordBody(t, badBal, &seen)
	if !strings.Contains(body, `"ok":false`) || !strings.Contains(body, `"supported":true`) {
		t.Fatalf("bad key balance: %s", body)
	}
	if strings.Contains(seen.String(), "abcdefghijklmnop") || strings.Contains(seen.String(), "0123456789abcdef") {
		t.Fatalf("a key came back: %s", seen.String())
	}

	if r := sendAPI(t, "GET", hs.URL+"/v1/providers/nope/balance", ""); r.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown source: %d", r.StatusCode)
	}
}

func TestSourceBalanceUnsupported(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	put := sendAPI(t, "PUT", hs.URL+"/v1/providers/local", `{"base_url":"http://127.0.0.1:9/v1","model":"m"}`)
	if put.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %d", put.StatusCode)
	}
	bal := answerAs[SourceBalance](t, sendAPI(t, "GET", hs.URL+"/v1/providers/local/balance", ""), http.StatusOK)
	if bal.Supported || bal.OK || !strings.Contains(bal.Error, "no balance API") {
		t.Fatalf("balance %+v", bal)
	}
}

func TestPresetsCarryProviderDefs(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	list := answerAs[PresetList](t, sendAPI(t, "GET", hs.URL+"/v1/providers/presets", ""), http.StatusOK)
	got := map[string]ProviderPreset{}
	for _, p := range list.Presets {
		got[p.Name] = p
	}
	ds := got["deepseek"]
	if !ds.HasBalance || ds.Provider.Auth != "apiKey" || len(ds.Provider.Models) == 0 || ds.Provider.Models[0].Pricing.Currency != "CNY" {
		t.Fatalf("deepseek preset %+v", ds)
	}
	if o := got["ollama"]; o.HasBalance || o.Provider.Auth != "none" || o.Provider.Models == nil {
		t.Fatalf("ollama preset %+v", o)
	}
}

var registerOnce sync.Once

// A provider a compiled-in plugin registered: a source at its address is
// listed and its balance read with its own functions, given the source's
// key.
func TestRegisteredProviderFunctions(t *testing.T) {
	const key = "sk-registered-key-0123456789"
	registerOnce.Do(func() {
		sdk.RegisterProvider("server-test-registered", sdk.ProviderDef{
			Name: "Registered", Auth: sdk.AuthAPIKey, DefaultBaseURL: "http://registered.invalid/v1",
			Models: []sdk.ProviderModel{{ID: "r1", Pricing: &sdk.ModelPricing{Currency: "USD", InputCacheMiss: 1, Output: 2}}}, DefaultModel: "r1",
			ListModels: func(_ context.Context, c sdk.ProviderConfig) ([]sdk.ProviderModel, error) {
				if c.Credential != key {
					return nil, errors.New("wrong key")
				}
				return []sdk.ProviderModel{{ID: "r1"}, {ID: "r2"}}, nil
			},
			Balance: func(_ context.Context, c sdk.ProviderConfig) (sdk.ProviderAccount, error) {
				return sdk.ProviderAccount{Available: true, Balances: []sdk.ProviderBalance{{Currency: "USD", Total: 7}}}, nil
			},
		})
	})
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	presets := answerAs[PresetList](t, sendAPI(t, "GET", hs.URL+"/v1/providers/presets", ""), http.StatusOK)
	var offered bool
	for _, p := range presets.Presets {
		offered = offered || p.Name == "server-test-registered" && p.HasBalance && p.Model == "r1"
	}
	if !offered {
		t.Fatal("the registered provider is not among the presets")
	}
	put := sendAPI(t, "PUT", hs.URL+"/v1/providers/reg", `{"base_url":"http://registered.invalid/v1","model":"r1","api_key":"`+key+`"}`)
	if put.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %d", put.StatusCode)
	}
	ms := answerAs[SourceModels](t, sendAPI(t, "GET", hs.URL+"/v1/providers/reg/models", ""), http.StatusOK)
	if !ms.Listed || len(ms.Models) != 2 || ms.Models[0].Pricing == nil || ms.Models[0].Pricing.Output != 2 {
		t.Fatalf("models %+v", ms)
	}
	bal := answerAs[SourceBalance](t, sendAPI(t, "GET", hs.URL+"/v1/providers/reg/balance", ""), http.StatusOK)
	if !bal.OK || bal.Account.Balances[0].Total != 7 {
		t.Fatalf("balance %+v", bal)
	}
}

// The prices listed with a source's models are the ones its calls are
// charged at: the source's own price from config.json for every model,
// else the preset's (peak hours kept), else the list price of the
// model's name; none where there is none.
func TestChargedPrices(t *testing.T) {
	own := &llm.Price{Input: 2, Output: 8, CachedInput: 0.5, Currency: "CNY"}
	ms := []sdk.ProviderModel{{ID: "deepseek-flash"}, {ID: "mystery"}}
	ChargedPrices(llm.Source{BaseURL: "http://127.0.0.1:8080/v1", Price: own}, ms)
	for _, m := range ms {
		if p := m.Pricing; p == nil || p.Currency != "CNY" || p.InputCacheMiss != 2 || p.InputCacheHit != 0.5 || p.Output != 8 ||
			!strings.Contains(p.Source, "config.json") {
			t.Fatalf("%s with the source's price: %+v", m.ID, p)
		}
	}
	ms = []sdk.ProviderModel{{ID: "deepseek-flash"}, {ID: "mystery"}}
	ChargedPrices(llm.Source{BaseURL: "http://127.0.0.1:8080/v1"}, ms)
	charged, _ := llm.PriceOf(llm.Source{BaseURL: "http://127.0.0.1:8080/v1"}, "deepseek-flash")
	if p := ms[0].Pricing; p == nil || p.InputCacheMiss != charged.Input || p.Currency != charged.CurrencyCode() || ms[1].Pricing != nil {
		t.Fatalf("list prices: %+v, %+v", ms[0].Pricing, ms[1].Pricing)
	}
	preset := llm.PresetModels("deepseek")
	ChargedPrices(llm.Source{BaseURL: "https://api.deepseek.com/v1"}, preset)
	if preset[0].Pricing == nil || preset[0].Pricing.Peak == nil {
		t.Fatalf("the preset's peak hours were lost: %+v", preset[0].Pricing)
	}
}
