package llm

import (
	"strings"

	"github.com/hearth-agent/hearth/sdk"
)

// Price is what a model costs, per million tokens, in Currency.
type Price struct {
	Input  float64 `json:"input"`  // prompt tokens not served from the cache
	Output float64 `json:"output"` // completion tokens, reasoning included
	// CachedInput is the price of prompt tokens served from the
	// provider's cache; zero means the same as Input.
	CachedInput float64 `json:"cached_input,omitempty"`
	// CacheWrite is the price of prompt tokens written to the provider's
	// cache (Usage.CacheWriteTokens); zero means the same as Input.
	// Anthropic bills them at 1.25 times its input price (a five-minute
	// cache entry).
	CacheWrite float64 `json:"cache_write,omitempty"`
	// Currency is an ISO 4217 code; empty means USD.
	Currency string `json:"currency,omitempty"`
	// Zone is the IANA time zone of Windows (the provider's own, such
	// as "Asia/Shanghai"); empty means UTC.
	Zone string `json:"zone,omitempty"`
	// Windows are daily periods with other prices (off-peak discounts,
	// peak surcharges); see PriceWindow and CostAt.
	Windows []PriceWindow `json:"windows,omitempty"`
}

// Cost is what u costs at p, in p's currency: cached prompt tokens at the
// cached price, prompt tokens written to the cache at the cache write
// price, the other prompt tokens at the input price, completion tokens
// (reasoning tokens are among them) at the output price.
func (p Price) Cost(u Usage) float64 {
	prompt := max(u.PromptTokens, 0)
	cached := min(max(u.CachedTokens, 0), prompt)
	written := min(max(u.CacheWriteTokens, 0), prompt-cached)
	fresh := prompt - cached - written
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	writePrice := p.CacheWrite
	if writePrice == 0 {
		writePrice = p.Input
	}
	return (float64(fresh)*p.Input + float64(cached)*cachedPrice + float64(written)*writePrice +
		float64(max(u.CompletionTokens, 0))*p.Output) / 1e6
}

// CurrencyCode is p's currency, USD when none is named.
func (p Price) CurrencyCode() string {
	if p.Currency == "" {
		return "USD"
	}
	return strings.ToUpper(p.Currency)
}

// KnownPrice returns the list price a built-in provider preset gives
// model (PresetModels), in that provider's currency: matched as
// presetModel matches. The presets are the one price table: `hearth
// models`, the web UI and cost all read it.
func KnownPrice(model string) (Price, bool) {
	return presetPrice("", model)
}

// presetPrice returns the price preset lists for model (every preset's
// list, in order, when preset is "").
func presetPrice(preset, model string) (Price, bool) {
	pm, ok := presetModel(preset, model, func(pm sdk.ProviderModel) bool { return pm.Pricing != nil })
	if !ok {
		return Price{}, false
	}
	return PriceFromPricing(*pm.Pricing), true
}

// presetModel returns the first model of preset's list (every preset's,
// in order, when preset is "") for which has holds whose id is model,
// matched without case, whole or without its "vendor/" path, and failing
// that without a trailing release date ("gpt-4o-mini-2024-07-18" is
// gpt-4o-mini).
func presetModel(preset, model string, has func(sdk.ProviderModel) bool) (sdk.ProviderModel, bool) {
	find := func(m string) (sdk.ProviderModel, bool) {
		short := m
		if i := strings.LastIndexByte(m, '/'); i >= 0 {
			short = m[i+1:]
		}
		for _, name := range presetOrder {
			if preset != "" && name != preset {
				continue
			}
			for _, pm := range presetModels[name] {
				if id := strings.ToLower(pm.ID); has(pm) && (id == m || id == short) {
					return pm, true
				}
			}
		}
		return sdk.ProviderModel{}, false
	}
	m := strings.ToLower(model)
	if pm, ok := find(m); ok {
		return pm, true
	}
	if base := strings.TrimSuffix(m, dateSuffix(m)); base != m {
		return find(base)
	}
	return sdk.ProviderModel{}, false
}

// dateSuffix returns m's trailing "-YYYY-MM-DD" or "-YYYYMMDD", or "".
func dateSuffix(m string) string {
	digits := func(s string) bool {
		for _, c := range s {
			if c < '0' || c > '9' {
				return false
			}
		}
		return s != ""
	}
	if n := len(m); n > 11 && m[n-11] == '-' && m[n-6] == '-' && m[n-3] == '-' &&
		digits(m[n-10:n-6]+m[n-5:n-3]+m[n-2:]) && strings.HasPrefix(m[n-10:], "20") {
		return m[n-11:]
	}
	if n := len(m); n > 9 && m[n-9] == '-' && digits(m[n-8:]) && strings.HasPrefix(m[n-8:], "20") {
		return m[n-9:]
	}
	return ""
}

// PriceOf returns the price of a call of model through src: the source's
// configured price; else, for a source at a built-in preset's address
// (api.deepseek.com, say), the price that preset lists for model, and no
// price when it lists none (the provider bills its own way: another
// maker's list price would be a guess); no price at those providers'
// international sites, which bill in another currency; else the list
// price of model from any preset (KnownPrice), in its maker's currency.
func PriceOf(src Source, model string) (Price, bool) {
	if src.Price != nil {
		return *src.Price, true
	}
	if model == "" {
		model = src.Model
	}
	if billsOtherwise(src.BaseURL) {
		return Price{}, false
	}
	if preset := PresetAt(src.BaseURL); preset != "" {
		return presetPrice(preset, model)
	}
	return KnownPrice(model)
}
