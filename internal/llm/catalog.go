package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/sdk"
)

// Listing a provider's models and reading its account balance, each in
// the provider's own wire format:
//
//   - models: OpenAI-compatible GET {base}/models, Anthropic GET
//     {base}/v1/models (paged by after_id), Ollama GET {root}/api/tags;
//   - balance: DeepSeek GET {root}/user/balance, Kimi (Moonshot) GET
//     {base}/users/me/balance, SiliconFlow GET {base}/user/info.
//
// Other providers publish no balance API that Hearth knows of:
// BalanceFunc returns nil for them and callers answer sdk.ErrNoBalance.

// CatalogTimeout bounds one listing or balance request.
const CatalogTimeout = 20 * time.Second

// maxCatalogBytes bounds an answer read: a model list of a few thousand
// entries fits.
const maxCatalogBytes = 4 << 20

// ListModelsFunc returns the function that lists the models of a
// provider speaking api at baseURL: Ollama's tags for a base address on
// port 11434, Anthropic's for APIAnthropic, the OpenAI one otherwise.
func ListModelsFunc(api, baseURL string) func(context.Context, sdk.ProviderConfig) ([]sdk.ProviderModel, error) {
	switch {
	case api == APIAnthropic:
		return ListModelsAnthropic
	case isOllama(baseURL):
		return ListModelsOllama
	default:
		return ListModelsOpenAI
	}
}

// BalanceFunc returns the balance reader of the provider at baseURL,
// found by its host; nil when it has none.
func BalanceFunc(baseURL string) func(context.Context, sdk.ProviderConfig) (sdk.ProviderAccount, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil
	}
	switch h := strings.ToLower(u.Hostname()); {
	case h == "api.deepseek.com":
		return BalanceDeepSeek
	case h == "api.moonshot.cn" || h == "api.moonshot.ai":
		return BalanceKimi
	case h == "api.siliconflow.cn" || h == "api.siliconflow.com":
		return BalanceSiliconFlow
	}
	return nil
}

func isOllama(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && u.Port() == "11434"
}

// ListModelsOpenAI lists models with GET {base}/models, answered as
// {"data": [{"id": ...}]}.
func ListModelsOpenAI(ctx context.Context, cfg sdk.ProviderConfig) ([]sdk.ProviderModel, error) {
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := getJSON(ctx, cfg, joinURL(cfg.BaseURL, "models"), bearer(cfg.Credential), &body); err != nil {
		return nil, err
	}
	out := make([]sdk.ProviderModel, 0, len(body.Data))
	for _, m := range body.Data {
		if m.ID != "" {
			out = append(out, sdk.ProviderModel{ID: m.ID})
		}
	}
	return out, nil
}

// anthropicPages bounds the pages ListModelsAnthropic follows.
const anthropicPages = 20

// ListModelsAnthropic lists models with GET {base}/v1/models, following
// has_more/last_id pages; base is Anthropic's root
// (https://api.anthropic.com), with or without /v1.
func ListModelsAnthropic(ctx context.Context, cfg sdk.ProviderConfig) ([]sdk.ProviderModel, error) {
	base := strings.TrimSuffix(strings.TrimRight(cfg.BaseURL, "/"), "/v1")
	hdr := http.Header{}
	hdr.Set("x-api-key", cfg.Credential)
	hdr.Set("anthropic-version", "2023-06-01")
	var out []sdk.ProviderModel
	after := ""
	for range anthropicPages {
		u := joinURL(base, "v1/models") + "?limit=1000"
		if after != "" {
			u += "&after_id=" + url.QueryEscape(after)
		}
		var page struct {
			Data []struct {
				ID          string `json:"id"`
				DisplayName string `json:"display_name"`
			} `json:"data"`
			HasMore bool   `json:"has_more"`
			LastID  string `json:"last_id"`
		}
		if err := getJSON(ctx, cfg, u, hdr, &page); err != nil {
			return nil, err
		}
		for _, m := range page.Data {
			if m.ID != "" {
				out = append(out, sdk.ProviderModel{ID: m.ID, Name: m.DisplayName})
			}
		}
		if !page.HasMore || page.LastID == "" || page.LastID == after {
			return out, nil
		}
		after = page.LastID
	}
	return out, nil
}

// ListModelsOllama lists the models pulled into a local Ollama with GET
// {root}/api/tags; base may end in /v1 (its OpenAI-compatible address).
func ListModelsOllama(ctx context.Context, cfg sdk.ProviderConfig) ([]sdk.ProviderModel, error) {
	var body struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := getJSON(ctx, cfg, joinURL(rootURL(cfg.BaseURL), "api/tags"), nil, &body); err != nil {
		return nil, err
	}
	out := make([]sdk.ProviderModel, 0, len(body.Models))
	for _, m := range body.Models {
		id := m.Model
		if id == "" {
			id = m.Name
		}
		if id != "" {
			out = append(out, sdk.ProviderModel{ID: id, Name: m.Name})
		}
	}
	return out, nil
}

// BalanceDeepSeek reads GET {root}/user/balance: is_available and
// balance_infos with decimal strings per currency.
func BalanceDeepSeek(ctx context.Context, cfg sdk.ProviderConfig) (sdk.ProviderAccount, error) {
	var body struct {
		IsAvailable  bool `json:"is_available"`
		BalanceInfos []struct {
			Currency string `json:"currency"`
			Total    string `json:"total_balance"`
			Granted  string `json:"granted_balance"`
			ToppedUp string `json:"topped_up_balance"`
		} `json:"balance_infos"`
	}
	if err := getJSON(ctx, cfg, joinURL(rootURL(cfg.BaseURL), "user/balance"), bearer(cfg.Credential), &body); err != nil {
		return sdk.ProviderAccount{}, err
	}
	acc := sdk.ProviderAccount{Available: body.IsAvailable, Balances: []sdk.ProviderBalance{}}
	for _, b := range body.BalanceInfos {
		total, err := decimal(b.Total)
		if err != nil {
			return sdk.ProviderAccount{}, fmt.Errorf("deepseek balance: total_balance: %w", err)
		}
		bal := sdk.ProviderBalance{Currency: strings.ToUpper(b.Currency), Total: total}
		if v, err := decimal(b.Granted); err == nil && b.Granted != "" {
			bal.Granted = &v
		}
		if v, err := decimal(b.ToppedUp); err == nil && b.ToppedUp != "" {
			bal.ToppedUp = &v
		}
		acc.Balances = append(acc.Balances, bal)
	}
	return acc, nil
}

// BalanceKimi reads Moonshot's GET {base}/users/me/balance:
// {"code": 0, "data": {"available_balance", "voucher_balance",
// "cash_balance"}, "status": true}. The answer names no currency: CNY on
// api.moonshot.cn, USD on api.moonshot.ai, as their documents say.
func BalanceKimi(ctx context.Context, cfg sdk.ProviderConfig) (sdk.ProviderAccount, error) {
	var body struct {
		Code   int  `json:"code"`
		Status bool `json:"status"`
		Data   *struct {
			Available float64 `json:"available_balance"`
			Voucher   float64 `json:"voucher_balance"`
			Cash      float64 `json:"cash_balance"`
		} `json:"data"`
	}
	if err := getJSON(ctx, cfg, joinURL(cfg.BaseURL, "users/me/balance"), bearer(cfg.Credential), &body); err != nil {
		return sdk.ProviderAccount{}, err
	}
	if body.Code != 0 || body.Data == nil {
		return sdk.ProviderAccount{}, fmt.Errorf("kimi balance: the answer has code %d and no data", body.Code)
	}
	cur := "CNY"
	if u, err := url.Parse(cfg.BaseURL); err == nil && strings.HasSuffix(strings.ToLower(u.Hostname()), ".ai") {
		cur = "USD"
	}
	d := body.Data
	return sdk.ProviderAccount{Available: d.Available > 0, Balances: []sdk.ProviderBalance{{
		Currency: cur, Total: d.Available, Granted: &d.Voucher, ToppedUp: &d.Cash}}}, nil
}

// BalanceSiliconFlow reads GET {base}/user/info: {"code": 20000,
// "status": true, "data": {"balance", "chargeBalance", "totalBalance"}}
// with decimal strings, CNY on api.siliconflow.cn and USD on
// api.siliconflow.com. The field names are from SiliconFlow's user-info
// reference as recalled, not re-read (see docs/providers.md).
func BalanceSiliconFlow(ctx context.Context, cfg sdk.ProviderConfig) (sdk.ProviderAccount, error) {
	var body struct {
		Status bool `json:"status"`
		Data   *struct {
			Balance       json.Number `json:"balance"`
			ChargeBalance json.Number `json:"chargeBalance"`
			TotalBalance  json.Number `json:"totalBalance"`
		} `json:"data"`
	}
	if err := getJSON(ctx, cfg, joinURL(cfg.BaseURL, "user/info"), bearer(cfg.Credential), &body); err != nil {
		return sdk.ProviderAccount{}, err
	}
	if body.Data == nil {
		return sdk.ProviderAccount{}, errors.New("siliconflow balance: the answer has no data")
	}
	total, err := decimal(body.Data.TotalBalance.String())
	if err != nil {
		return sdk.ProviderAccount{}, fmt.Errorf("siliconflow balance: totalBalance: %w", err)
	}
	cur := "CNY"
	if u, err := url.Parse(cfg.BaseURL); err == nil && strings.HasSuffix(strings.ToLower(u.Hostname()), ".com") {
		cur = "USD"
	}
	bal := sdk.ProviderBalance{Currency: cur, Total: total}
	if v, err := decimal(body.Data.Balance.String()); err == nil {
		bal.Granted = &v
	}
	if v, err := decimal(body.Data.ChargeBalance.String()); err == nil {
		bal.ToppedUp = &v
	}
	return sdk.ProviderAccount{Available: total > 0, Balances: []sdk.ProviderBalance{bal}}, nil
}

func decimal(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v != v || v > 1e15 || v < -1e15 {
		return 0, fmt.Errorf("%q is not an amount", s)
	}
	return v, nil
}

func bearer(key string) http.Header {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}

func joinURL(base, path string) string {
	return strings.TrimRight(base, "/") + "/" + path
}

// rootURL is base without a trailing /v1 (DeepSeek's and Ollama's
// non-OpenAI routes live at the root).
func rootURL(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}

// getJSON GETs u with hdr and decodes a 2xx JSON answer into out. A
// non-2xx answer is an *APIError (401 and 403 match ErrAuth) whose
// message has the credential and anything key-like masked.
func getJSON(ctx context.Context, cfg sdk.ProviderConfig, u string, hdr http.Header, out any) error {
	ctx, cancel := context.WithTimeout(ctx, CatalogTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("provider address: %w", err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	hc := cfg.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	var secrets redact.Secrets
	secrets.Add(cfg.Credential)
	resp, err := hc.Do(req)
	if err != nil {
		return errors.New(secrets.All(err.Error()))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxCatalogBytes+1))
	if err != nil {
		return fmt.Errorf("reading the provider's answer: %s", secrets.All(err.Error()))
	}
	if len(data) > maxCatalogBytes {
		return fmt.Errorf("the provider's answer is over %d bytes", maxCatalogBytes)
	}
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(data))
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
			Message string `json:"message"`
		}
		if json.Unmarshal(data, &e) == nil {
			if e.Error.Message != "" {
				msg = e.Error.Message
			} else if e.Message != "" {
				msg = e.Message
			}
		}
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		return &APIError{Status: resp.StatusCode, Message: secrets.All(msg)}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("the provider's answer is not the expected JSON: %w", err)
	}
	return nil
}
