package llm

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/hearth-agent/hearth/sdk"
)

// The models of the built-in provider presets, with their published
// prices. Each price says where it was read and when; a price Hearth
// could not check against the provider's own page in this session is
// marked Unverified, and docs/providers.md lists which and why. Prices
// are in the provider's own currency (CNY for the Chinese providers),
// per million tokens.
//
// Peak windows: DeepSeek's current pricing page lists an idle-time price
// and a peak price twice it, peak being Monday to Friday 9:00-12:00 and
// 14:00-18:00 Beijing time (Chinese public holidays are idle all day,
// which a PricePeak cannot say). Its models carry the idle price with a
// Peak of 2, which cost and budgets apply (PriceFromPricing).

const (
	srcDeepSeek  = "https://api-docs.deepseek.com/zh-cn/quick_start/pricing"
	srcQwen      = "https://help.aliyun.com/zh/model-studio/models"
	srcKimi      = "https://platform.moonshot.cn/docs/pricing/chat"
	srcGLM       = "https://open.bigmodel.cn/pricing"
	srcSilicon   = "https://siliconflow.cn/pricing"
	srcOpenAI    = "https://openai.com/api/pricing/"
	srcAnthropic = "https://platform.claude.com/docs/en/about-claude/pricing"
)

func price(cur string, hit, miss, out float64, source string, verified bool) *sdk.ModelPricing {
	return &sdk.ModelPricing{Currency: cur, InputCacheHit: hit, InputCacheMiss: miss, Output: out,
		Source: source, Unverified: !verified}
}

func anthropicPrice(in, out float64, verified bool) *sdk.ModelPricing {
	note := " (read 2026-12-01)"
	if !verified {
		note = " (this model's row not in the stored copy read 2026-12-01)"
	}
	p := price("USD", in/10, in, out, srcAnthropic+note, verified)
	p.CacheWrite = in * 1.25
	return p
}

// deepSeekPrice is a DeepSeek model's idle-time price, doubled in the
// weekday peak hours (Beijing time) its pricing page gives.
func deepSeekPrice(hit, miss, out float64) *sdk.ModelPricing {
	p := price("CNY", hit, miss, out, srcDeepSeek+" (idle price; peak is twice it, Mon-Fri 9-12 and 14-18 Beijing time, "+
		"holidays idle; read 2026-12-01 from stored copies of the page, undated, naming DeepSeek-V4.1-Flash-1017 and DeepSeek-V4-Pro-0813)", true)
	p.Peak = &sdk.PricePeak{Multiplier: 2, UTCOffsetMinutes: 8 * 60, Weekdays: []int{1, 2, 3, 4, 5}, Hours: [][2]int{{9, 12}, {14, 18}}}
	return p
}

// kimiNote is the note of the Kimi prices, none confirmed.
const kimiNote = " (not confirmed 2026-12-01: platform.kimi.com/docs/pricing has a Kimi K2 and a Moonshot V1 page " +
	"but no stored copy of their tables was found; a third-party page says the kimi-k2 preview models were retired 2026-05-25)"

// glmNote ends the note of the GLM prices, none confirmed.
const glmNote = "; not confirmed 2026-12-01: the stored copy of docs.bigmodel.cn/cn/guide/start/pricing shows only " +
	"the GLM-5.3 rows, not these)"

// openAINote is the note of the OpenAI prices: OpenAI's page no longer
// lists these models.
const openAINote = " (read 2025-11; not on OpenAI's pricing page in 2026 per third-party notes, and no " +
	"stored copy listing them found 2026-12-01; third-party tables of 2025-06 give the same numbers)"

// deepSeekRetired is the note of deepseek-chat and deepseek-reasoner,
// kept so that old configurations still find a price.
const deepSeekRetired = " (V3.2 prices of 2025-09-29; the page, as archived 2026-04-26 and copied 2026-05-22, " +
	"says these names were deprecated on 2026-07-24 and billed as deepseek-v4-flash until then; the copies read 2026-12-01 no longer list them)"

var (
	text      = []string{"text"}
	textImage = []string{"text", "image"}
)

// presetModels are the listed models of each preset, by preset name.
var presetModels = map[string][]sdk.ProviderModel{
	"deepseek": {
		{ID: "deepseek-flash", Name: "DeepSeek Flash (V4.1)", ContextWindow: 1_000_000, InputModalities: textImage,
			Pricing: deepSeekPrice(0.02, 1, 4)},
		{ID: "deepseek-v4-pro", Name: "DeepSeek V4 Pro", ContextWindow: 1_000_000, InputModalities: text,
			Pricing: deepSeekPrice(0.15, 4.5, 13.5)},
		// The page: the old name is still accepted, served by the Flash
		// model and billed at its price.
		{ID: "deepseek-v4-flash", Name: "DeepSeek V4 Flash (old name of deepseek-flash)", ContextWindow: 1_000_000, InputModalities: textImage,
			Pricing: deepSeekPrice(0.02, 1, 4)},
		{ID: "deepseek-chat", Name: "DeepSeek (non-thinking, retired)", ContextWindow: 128_000, InputModalities: text,
			Pricing: price("CNY", 0.2, 2, 3, srcDeepSeek+deepSeekRetired, false)},
		{ID: "deepseek-reasoner", Name: "DeepSeek (thinking, retired)", ContextWindow: 128_000, InputModalities: text,
			Pricing: price("CNY", 0.2, 2, 3, srcDeepSeek+deepSeekRetired, false)},
	},
	"qwen": {
		{ID: "qwen-plus", Name: "Qwen Plus", ContextWindow: 131_072, InputModalities: text,
			Pricing: price("CNY", 0.16, 0.8, 2, srcQwen+" (input up to 128K, non-thinking, from an older stored copy of the model list; "+
				"the hit price is the 20% of input that help.aliyun.com/zh/model-studio/context-cache gives implicit cache hits; "+
				"no current qwen-plus page found 2026-12-01)", false)},
		{ID: "qwen-max", Name: "Qwen Max", ContextWindow: 32_768, InputModalities: text,
			Pricing: price("CNY", 2.4, 2.4, 9.6, srcQwen+" (not confirmed 2026-12-01: the only official copy found, an old model list, "+
				"still shows 0.02/0.06 yuan per thousand; 2.4/9.6 is from third-party tables; no cache-hit price found)", false)},
		{ID: "qwen-turbo", Name: "Qwen Turbo", ContextWindow: 131_072, InputModalities: text,
			Pricing: price("CNY", 0.06, 0.3, 0.6, srcQwen+" (0.0003/0.0006 yuan per thousand on an old stored copy of the model list, "+
				"which gave a 1M window; the stored copy of alibabacloud.com/help/en/model-studio/qwen-turbo read 2026-12-01 gives "+
				"a 131,072 window and context caching in Beijing but its price table is cut; hit is 20% of input, per the context-cache page)", false)},
	},
	"kimi": {
		{ID: "moonshot-v1-8k", Name: "Moonshot v1 8K", ContextWindow: 8_192, InputModalities: text,
			Pricing: price("CNY", 2, 2, 10, srcKimi+kimiNote, false)},
		{ID: "kimi-k2-0905-preview", Name: "Kimi K2", ContextWindow: 262_144, InputModalities: text,
			Pricing: price("CNY", 1, 4, 16, srcKimi+kimiNote, false)},
		{ID: "kimi-k2-turbo-preview", Name: "Kimi K2 Turbo", ContextWindow: 262_144, InputModalities: text,
			Pricing: price("CNY", 1, 8, 58, srcKimi+kimiNote, false)},
		{ID: "kimi-k2-thinking", Name: "Kimi K2 Thinking", ContextWindow: 262_144, InputModalities: text,
			Pricing: price("CNY", 1, 4, 16, srcKimi+kimiNote, false)},
	},
	"glm": {
		{ID: "glm-4-flash", Name: "GLM-4-Flash (free)", ContextWindow: 128_000, InputModalities: text,
			Pricing: price("CNY", 0, 0, 0, srcGLM+" (listed free"+glmNote, false)},
		{ID: "glm-4.6", Name: "GLM-4.6", ContextWindow: 200_000, InputModalities: text,
			Pricing: price("CNY", 0.4, 2, 8, srcGLM+" (input up to 32K"+glmNote, false)},
		{ID: "glm-4.5-air", Name: "GLM-4.5-Air", ContextWindow: 131_072, InputModalities: text,
			Pricing: price("CNY", 0.16, 0.8, 2, srcGLM+" (input up to 32K, output up to 200 tokens tier"+glmNote, false)},
	},
	"siliconflow": {
		{ID: "Qwen/Qwen2.5-7B-Instruct", Name: "Qwen2.5 7B Instruct (free)", ContextWindow: 32_768, InputModalities: text,
			Pricing: price("CNY", 0, 0, 0, srcSilicon+" (listed free; no stored copy of the pricing page found 2026-12-01)", false)},
		{ID: "deepseek-ai/DeepSeek-V3.2", Name: "DeepSeek V3.2", ContextWindow: 163_840, InputModalities: text,
			Pricing: price("CNY", 2, 2, 3, srcSilicon+" (no stored copy of the pricing page found 2026-12-01)", false)},
		{ID: "Qwen/Qwen3-8B", Name: "Qwen3 8B (free)", ContextWindow: 131_072, InputModalities: text,
			Pricing: price("CNY", 0, 0, 0, srcSilicon+" (listed free; no stored copy of the pricing page found 2026-12-01)", false)},
	},
	"openai": {
		{ID: "gpt-4.1", ContextWindow: 1_047_576, InputModalities: textImage,
			Pricing: price("USD", 0.50, 2.00, 8.00, srcOpenAI+openAINote, false)},
		{ID: "gpt-4.1-mini", ContextWindow: 1_047_576, InputModalities: textImage,
			Pricing: price("USD", 0.10, 0.40, 1.60, srcOpenAI+openAINote, false)},
		{ID: "gpt-4o", ContextWindow: 128_000, InputModalities: textImage,
			Pricing: price("USD", 1.25, 2.50, 10.00, srcOpenAI+openAINote, false)},
		{ID: "gpt-4.1-nano", ContextWindow: 1_047_576, InputModalities: textImage,
			Pricing: price("USD", 0.025, 0.10, 0.40, srcOpenAI+openAINote, false)},
		{ID: "gpt-4o-mini", ContextWindow: 128_000, InputModalities: textImage,
			Pricing: price("USD", 0.075, 0.15, 0.60, srcOpenAI+openAINote, false)},
	},
	"anthropic": {
		{ID: "claude-opus-4-5", Name: "Claude Opus 4.5", ContextWindow: 200_000, InputModalities: textImage,
			Pricing: anthropicPrice(5, 25, true)},
		{ID: "claude-sonnet-4-5", Name: "Claude Sonnet 4.5", ContextWindow: 200_000, InputModalities: textImage,
			Pricing: anthropicPrice(3, 15, true)},
		{ID: "claude-haiku-4-5", Name: "Claude Haiku 4.5", ContextWindow: 200_000, InputModalities: textImage,
			Pricing: anthropicPrice(1, 5, true)},
	},
}

// presetOrder is the order in which presets' lists are searched for a
// model's price or window.
var presetOrder = []string{"deepseek", "qwen", "kimi", "glm", "siliconflow", "openai", "anthropic"}

// presetHosts are the hosts whose bills follow a preset's list. The
// international sites of DashScope, Moonshot, SiliconFlow and Zhipu bill
// in USD at other prices: they are otherBills.
var presetHosts = map[string]string{
	"api.deepseek.com":       "deepseek",
	"dashscope.aliyuncs.com": "qwen",
	"api.moonshot.cn":        "kimi",
	"open.bigmodel.cn":       "glm",
	"api.siliconflow.cn":     "siliconflow",
	"api.openai.com":         "openai",
	"api.anthropic.com":      "anthropic",
}

// otherBills are the hosts of the presets' providers that bill at other
// prices, in another currency (their international sites): a source
// there gets no built-in price, rather than the Chinese site's in yuan.
var otherBills = map[string]bool{
	"dashscope-intl.aliyuncs.com": true, "dashscope-us.aliyuncs.com": true,
	"api.moonshot.ai": true, "api.siliconflow.com": true, "api.z.ai": true,
}

// PresetAt returns the name of the preset whose provider serves baseURL
// (by its host), "" for any other address.
func PresetAt(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return presetHosts[strings.ToLower(u.Hostname())]
}

// billsOtherwise reports whether baseURL is a host of otherBills.
func billsOtherwise(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && otherBills[strings.ToLower(u.Hostname())]
}

// PresetWindow returns the context window a preset lists for model,
// matched like KnownPrice; false when none lists it.
func PresetWindow(model string) (int, bool) {
	pm, ok := presetModel("", model, func(pm sdk.ProviderModel) bool { return pm.ContextWindow > 0 })
	return pm.ContextWindow, ok
}

// presetEfforts are the reasoning efforts a preset's API takes.
var presetEfforts = map[string][]string{
	"openai":    {"minimal", "low", "medium", "high"},
	"anthropic": {"low", "medium", "high"},
}

// PresetModels returns the listed models of the built-in preset name
// (config.Presets' names), nil for one with none listed (a local
// server's models are whatever the user pulled). The slice is a copy.
func PresetModels(name string) []sdk.ProviderModel {
	ms := presetModels[name]
	if ms == nil {
		return nil
	}
	out := make([]sdk.ProviderModel, len(ms))
	for i, m := range ms {
		if m.Pricing != nil {
			p := *m.Pricing
			m.Pricing = &p
		}
		out[i] = m
	}
	return out
}

// PresetEfforts returns the reasoning efforts of preset name, lowest
// first; nil when the API takes none Hearth knows of.
func PresetEfforts(name string) []string { return append([]string(nil), presetEfforts[name]...) }

// PriceFromPricing is p as a Price, for cost: cache hits at
// InputCacheHit, other prompt tokens at InputCacheMiss, and the peak
// hours, when p has them, as windows of the peak multiplier in the
// provider's UTC offset.
func PriceFromPricing(p sdk.ModelPricing) Price {
	out := Price{Input: p.InputCacheMiss, CachedInput: p.InputCacheHit, CacheWrite: p.CacheWrite,
		Output: p.Output, Currency: p.Currency}
	if pk := p.Peak; pk != nil && pk.Multiplier > 0 {
		out.Zone = FixedZone(pk.UTCOffsetMinutes)
		for _, h := range pk.Hours {
			out.Windows = append(out.Windows, PriceWindow{Start: fmt.Sprintf("%02d:00", h[0]), End: fmt.Sprintf("%02d:00", h[1]),
				Multiplier: pk.Multiplier, Days: slices.Clone(pk.Weekdays)})
		}
	}
	return out
}
