package config

import (
	"math"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
)

func TestBuiltinProvidersAreValid(t *testing.T) {
	bs := BuiltinProviders()
	if len(bs) != len(Presets()) {
		t.Fatalf("%d providers for %d presets", len(bs), len(Presets()))
	}
	cny := map[string]bool{"deepseek": true, "qwen": true, "kimi": true, "glm": true, "siliconflow": true}
	for _, b := range bs {
		d := b.Def
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", b.Preset.Name, err)
		}
		if d.ListModels == nil {
			t.Errorf("%s: no ListModels", b.Preset.Name)
		}
		if b.Preset.NeedsKey && (len(d.Models) == 0 || d.CredentialHint == "") {
			t.Errorf("%s: a hosted provider lists no models or no credential hint", b.Preset.Name)
		}
		for _, m := range d.Models {
			p := m.Pricing
			if p == nil {
				t.Errorf("%s/%s: no price", b.Preset.Name, m.ID)
				continue
			}
			// Every price says where it was read and when.
			if !strings.HasPrefix(p.Source, "https://") || !strings.Contains(p.Source, "20") {
				t.Errorf("%s/%s: source %q has no URL or date", b.Preset.Name, m.ID, p.Source)
			}
			if cny[b.Preset.Name] != (p.Currency == "CNY") {
				t.Errorf("%s/%s: currency %s, want the provider's own", b.Preset.Name, m.ID, p.Currency)
			}
			if p.InputCacheHit > p.InputCacheMiss {
				t.Errorf("%s/%s: a cache hit costs more than a miss", b.Preset.Name, m.ID)
			}
		}
	}
	balance := map[string]bool{}
	for _, b := range bs {
		balance[b.Preset.Name] = b.Def.Balance != nil
	}
	for name, want := range map[string]bool{"deepseek": true, "kimi": true, "siliconflow": true, "openai": false, "qwen": false, "ollama": false} {
		if balance[name] != want {
			t.Errorf("%s: balance set = %v, want %v", name, balance[name], want)
		}
	}
}

// The cost of a scripted three-call conversation on DeepSeek's preset,
// computed by hand: per million tokens, a cache hit 0.2 CNY, a miss 2,
// output 3.
func TestPresetPriceCostsByHand(t *testing.T) {
	b, ok := BuiltinProviderFor("https://api.deepseek.com/v1")
	if !ok {
		t.Fatal("no DeepSeek preset")
	}
	m, ok := b.Def.Model("deepseek-chat")
	if !ok {
		t.Fatal("no deepseek-chat")
	}
	p := llm.PriceFromPricing(*m.Pricing)
	calls := []llm.Usage{
		{PromptTokens: 1000, CompletionTokens: 200},                     // 1000*2 + 200*3 = 2600
		{PromptTokens: 1500, CachedTokens: 1000, CompletionTokens: 100}, // 1000*0.2 + 500*2 + 100*3 = 1500
		{PromptTokens: 2000, CachedTokens: 1500, CompletionTokens: 300}, // 1500*0.2 + 500*2 + 300*3 = 2200
	}
	var total float64
	for _, u := range calls {
		total += p.Cost(u)
	}
	if want := (2600.0 + 1500 + 2200) / 1e6; math.Abs(total-want) > 1e-12 || p.CurrencyCode() != "CNY" {
		t.Fatalf("cost %v %s, want %v CNY", total, p.CurrencyCode(), want)
	}
}

func TestBuiltinProviderFor(t *testing.T) {
	for base, want := range map[string]string{
		"https://api.moonshot.cn/v1": "kimi", "https://API.DEEPSEEK.COM": "deepseek", "http://127.0.0.1:11434/v1": "ollama",
		"http://127.0.0.1:9999/v1": "", "not a url %": "",
	} {
		b, ok := BuiltinProviderFor(base)
		if ok != (want != "") || (ok && b.Preset.Name != want) {
			t.Errorf("BuiltinProviderFor(%q) = %q, %v; want %q", base, b.Preset.Name, ok, want)
		}
	}
}
