package llm

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func TestPriceCost(t *testing.T) {
	p := Price{Input: 0.28, Output: 0.42, CachedInput: 0.028}
	for _, c := range []struct {
		name string
		p    Price
		u    Usage
		want float64
	}{
		{"nothing", p, Usage{}, 0},
		{"input only", p, Usage{PromptTokens: 1e6}, 0.28},
		{"output only", p, Usage{CompletionTokens: 1e6}, 0.42},
		{"cached at the cached price", p, Usage{PromptTokens: 1e6, CachedTokens: 4e5}, 0.6*0.28 + 0.4*0.028},
		{"reasoning counted in output", p, Usage{CompletionTokens: 1000, ReasoningTokens: 800}, 1000 * 0.42 / 1e6},
		{"no cached price: input price", Price{Input: 2, Output: 8}, Usage{PromptTokens: 1000, CachedTokens: 500}, 1000 * 2 / 1e6},
		{"more cached than prompt", p, Usage{PromptTokens: 10, CachedTokens: 20}, 10 * 0.028 / 1e6},
		{"negative counts", p, Usage{PromptTokens: -5, CompletionTokens: -5}, 0},
	} {
		if got := c.p.Cost(c.u); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: cost %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPriceOf(t *testing.T) {
	usd := func(in, out, cached float64) Price {
		return Price{Input: in, Output: out, CachedInput: cached, Currency: "USD"}
	}
	cny := func(in, out, cached float64) Price {
		return Price{Input: in, Output: out, CachedInput: cached, Currency: "CNY"}
	}
	own := &Price{Input: 1, Output: 2, Currency: "cny"}
	for _, c := range []struct {
		src   Source
		model string
		want  Price
		ok    bool
	}{
		{Source{Price: own}, "gpt-4o-mini", *own, true},
		{Source{}, "gpt-4o-mini", usd(0.15, 0.6, 0.075), true},
		{Source{}, "GPT-4o-mini-2024-07-18", usd(0.15, 0.6, 0.075), true},
		{Source{}, "openai/gpt-4.1-mini", usd(0.4, 1.6, 0.1), true},
		{Source{}, "gpt-4.1-nano", usd(0.1, 0.4, 0.025), true},
		// DeepSeek bills in yuan: its published price, in CNY, at its
		// address and by its model's name.
		{Source{Model: "deepseek-chat"}, "", cny(2, 3, 0.2), true},
		{Source{BaseURL: "https://api.deepseek.com/v1"}, "deepseek-reasoner", cny(2, 3, 0.2), true},
		{Source{BaseURL: "https://api.deepseek.com"}, "deepseek-chat", cny(2, 3, 0.2), true},
		{Source{}, "qwen-plus", cny(0.8, 2, 0.16), true},
		// At a preset's address only that provider's list counts: SiliconFlow
		// lists no gpt-4o-mini, so it has no guessed price.
		{Source{BaseURL: "https://api.siliconflow.cn/v1"}, "gpt-4o-mini", Price{}, false},
		{Source{BaseURL: "https://api.siliconflow.cn/v1"}, "deepseek-ai/DeepSeek-V3.2", cny(2, 3, 2), true},
		// The same providers' international sites bill in dollars at other
		// prices: no yuan price there.
		{Source{BaseURL: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1"}, "qwen-plus", Price{}, false},
		{Source{BaseURL: "https://api.moonshot.ai/v1"}, "kimi-k2-0905-preview", Price{}, false},
		// Anywhere else the maker's list price is used.
		{Source{BaseURL: "http://127.0.0.1:8080/v1"}, "deepseek/deepseek-chat", cny(2, 3, 0.2), true},
		{Source{}, "gpt-4o-mini-audio", Price{}, false},
		{Source{}, "llama3", Price{}, false},
		{Source{}, "", Price{}, false},
	} {
		got, ok := PriceOf(c.src, c.model)
		if !reflect.DeepEqual(got, c.want) || ok != c.ok {
			t.Errorf("PriceOf(%+v, %q) = %+v, %v; want %+v, %v", c.src, c.model, got, ok, c.want, c.ok)
		}
	}
	if own.CurrencyCode() != "CNY" || (Price{}).CurrencyCode() != "USD" {
		t.Error("currency codes")
	}
}

// Reasoning tokens are read from completion_tokens_details.
func TestUsageReasoningTokens(t *testing.T) {
	var u wireUsage
	if err := json.Unmarshal([]byte(`{"prompt_tokens":10,"completion_tokens":30,
		"completion_tokens_details":{"reasoning_tokens":25},"prompt_cache_hit_tokens":4}`), &u); err != nil {
		t.Fatal(err)
	}
	if got, want := u.usage(), (Usage{PromptTokens: 10, CompletionTokens: 30, TotalTokens: 40, CachedTokens: 4, ReasoningTokens: 25}); got != want {
		t.Errorf("usage %+v, want %+v", got, want)
	}
}
