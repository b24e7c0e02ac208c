package llm

import (
	"strings"
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

// knownPrices are the list prices of a few well-known models, per million
// tokens, as their makers published them in November 2025 (DeepSeek's
// V3.2 prices of 29 September 2025, OpenAI's API pricing page, Alibaba
// Cloud Model Studio's mainland China prices for qwen-plus without
// thinking, input up to 128K tokens, Anthropic's pricing page for
// prompts up to 200K tokens). They are used only when the
// source's configuration gives no price, and go stale: config.json's
// "price" is the way to be exact.
var knownPrices = map[string]Price{
	"deepseek-chat":     {Input: 0.28, Output: 0.42, CachedInput: 0.028},
	"deepseek-reasoner": {Input: 0.28, Output: 0.42, CachedInput: 0.028},
	"gpt-4o":            {Input: 2.50, Output: 10.00, CachedInput: 1.25},
	"gpt-4o-mini":       {Input: 0.15, Output: 0.60, CachedInput: 0.075},
	"gpt-4.1":           {Input: 2.00, Output: 8.00, CachedInput: 0.50},
	"gpt-4.1-mini":      {Input: 0.40, Output: 1.60, CachedInput: 0.10},
	"gpt-4.1-nano":      {Input: 0.10, Output: 0.40, CachedInput: 0.025},
	"qwen-plus":         {Input: 0.8, Output: 2, CachedInput: 0.16, Currency: "CNY"},
	// Anthropic's pricing page, November 2025: cache reads at 0.1 times
	// the input price, five-minute cache writes at 1.25 times.
	"claude-opus-4-5":   {Input: 5, Output: 25, CachedInput: 0.50, CacheWrite: 6.25},
	"claude-sonnet-4-5": {Input: 3, Output: 15, CachedInput: 0.30, CacheWrite: 3.75},
	"claude-haiku-4-5":  {Input: 1, Output: 5, CachedInput: 0.10, CacheWrite: 1.25},
}

// KnownPrice returns the built-in price of model, matched without case,
// without a "vendor/" path and without a trailing release date
// ("gpt-4o-mini-2024-07-18" is gpt-4o-mini); failing those, the price a
// built-in provider preset lists for it (PresetModels), in that
// provider's currency.
func KnownPrice(model string) (Price, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if p, ok := knownPrices[m]; ok {
		return p, true
	}
	if base, ok := strings.CutSuffix(m, dateSuffix(m)); ok && base != m {
		if p, ok := knownPrices[base]; ok {
			return p, true
		}
	}
	return presetPrice(model)
}

// presetPrice returns the price a built-in preset lists for model,
// matched without case, whole or without its "vendor/" path.
func presetPrice(model string) (Price, bool) {
	m := strings.ToLower(model)
	_, short, _ := strings.Cut(m, "/")
	for _, name := range []string{"deepseek", "qwen", "kimi", "glm", "siliconflow", "openai", "anthropic"} {
		for _, pm := range presetModels[name] {
			id := strings.ToLower(pm.ID)
			if pm.Pricing != nil && (id == m || (short != "" && id == short)) {
				return PriceFromPricing(*pm.Pricing), true
			}
		}
	}
	return Price{}, false
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
// configured price, else the built-in one of model, else none.
func PriceOf(src Source, model string) (Price, bool) {
	if src.Price != nil {
		return *src.Price, true
	}
	if model == "" {
		model = src.Model
	}
	return KnownPrice(model)
}
