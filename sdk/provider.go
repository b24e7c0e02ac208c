package sdk

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"sync"
)

// Model providers as data. A ProviderDef describes a model service the
// way the PKU harness's ProviderDef does (same field names in JSON): who
// it is, how a user signs in, where it answers, its models with their
// published prices, and optionally how to list its models and read the
// account balance with the user's own key. Hearth's built-in presets
// (DeepSeek, Qwen, Kimi, GLM, SiliconFlow, OpenAI, Anthropic, Ollama and
// any OpenAI-compatible server) are values of this type; a PKU plugin's
// manifest "providers" decodes to it too. HomeAgent's LLMAPI has no
// provider type, so this one is Hearth's.
//
// A compiled-in Go plugin registers a provider with RegisterProvider
// from init; the host offering a child plugin's providers (calling its
// listModels and balance over the protocol) is not wired yet: see
// docs/providers.md.

// ProviderAuth is how a provider's user proves who they are.
type ProviderAuth string

// The ways a provider authenticates.
const (
	AuthAPIKey  ProviderAuth = "apiKey"  // a key pasted by the user
	AuthAccount ProviderAuth = "account" // a token from signing in
	AuthNone    ProviderAuth = "none"    // a local server
)

// ProviderAPI is the wire format a provider speaks.
type ProviderAPI string

// The wire formats Hearth's client speaks.
const (
	APIOpenAI    ProviderAPI = "openai"    // chat completions
	APIAnthropic ProviderAPI = "anthropic" // Messages API
)

// ProviderDef is one model provider.
type ProviderDef struct {
	// Name is shown to users ("DeepSeek").
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Auth        ProviderAuth `json:"auth"`
	// DefaultBaseURL is the API's base address; EditableBaseURL lets the
	// user change it (a proxy, another region, a local server).
	DefaultBaseURL  string          `json:"defaultBaseURL"`
	EditableBaseURL bool            `json:"editableBaseURL,omitempty"`
	API             ProviderAPI     `json:"api,omitempty"` // "" means APIOpenAI
	Models          []ProviderModel `json:"models"`
	DefaultModel    string          `json:"defaultModel"`
	// Efforts are the reasoning efforts the API takes, lowest first,
	// from minimal, low, medium, high, xhigh, max.
	Efforts []string `json:"efforts,omitempty"`
	// CredentialHint tells the user where the key comes from.
	CredentialHint string `json:"credentialHint,omitempty"`
	// ListModels asks the provider for its models with the user's
	// configuration; nil when the provider cannot list them (Models is
	// the list then).
	ListModels func(ctx context.Context, cfg ProviderConfig) ([]ProviderModel, error) `json:"-"`
	// Balance reads the account's balance with the user's credential;
	// nil when the provider publishes no balance API.
	Balance func(ctx context.Context, cfg ProviderConfig) (ProviderAccount, error) `json:"-"`
}

// ProviderConfig is what a provider's functions get: the user's base
// address, model and credential, and the HTTP client to use.
type ProviderConfig struct {
	BaseURL string
	Model   string
	// Credential is the API key or account token; it must never be
	// logged or put in an error.
	Credential string
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
}

// DefaultContextWindow is the context window of a model that states
// none, in tokens (the PKU document's default).
const DefaultContextWindow = 128_000

// ProviderModel is one model of a provider.
type ProviderModel struct {
	ID          string `json:"id"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// ContextWindow is in tokens; 0 means DefaultContextWindow.
	ContextWindow int `json:"contextWindow,omitempty"`
	// InputModalities lists "text" and "image"; images are attached only
	// when "image" is listed.
	InputModalities []string      `json:"inputModalities,omitempty"`
	Pricing         *ModelPricing `json:"pricing,omitempty"`
}

// ModelPricing is a model's published price per million tokens.
type ModelPricing struct {
	Currency string `json:"currency"` // ISO 4217: CNY, USD
	// InputCacheHit is the price of prompt tokens served from the
	// provider's cache, InputCacheMiss of the others.
	InputCacheHit  float64 `json:"inputCacheHit"`
	InputCacheMiss float64 `json:"inputCacheMiss"`
	Output         float64 `json:"output"`
	// CacheWrite is the price of prompt tokens written to the cache
	// where the provider bills them apart (Anthropic); 0 means
	// InputCacheMiss. A Hearth extension of the PKU type.
	CacheWrite float64 `json:"cacheWrite,omitempty"`
	// Peak is a time-of-day price change; nil when the price is flat.
	Peak *PricePeak `json:"peak,omitempty"`
	// Source is where the price was read: its URL and the date it was
	// checked ("https://... (read 2026-12-01)").
	Source string `json:"source,omitempty"`
	// Unverified marks a price Hearth could not check against the
	// provider's own page: it is a best guess to be corrected. A Hearth
	// extension of the PKU type.
	Unverified bool `json:"unverified,omitempty"`
}

// PricePeak is a window of the week, in the provider's time zone, in
// which prices are multiplied by Multiplier (below 1 for an off-peak
// discount).
type PricePeak struct {
	Multiplier       float64 `json:"multiplier"`
	UTCOffsetMinutes int     `json:"utcOffsetMinutes"`
	// Weekdays are 0 (Sunday) to 6; Hours are [start, end) hour pairs.
	Weekdays []int    `json:"weekdays"`
	Hours    [][2]int `json:"hours"`
}

// ProviderAccount is an account's state: whether it can make calls, and
// its balances, one per currency.
type ProviderAccount struct {
	Available bool              `json:"available"`
	Balances  []ProviderBalance `json:"balances"`
}

// ProviderBalance is the money left in one currency: Total, of which
// Granted (vouchers, gifts) and ToppedUp (paid) when the provider says.
type ProviderBalance struct {
	Currency string   `json:"currency"`
	Total    float64  `json:"total"`
	Granted  *float64 `json:"granted,omitempty"`
	ToppedUp *float64 `json:"toppedUp,omitempty"`
}

// ErrNoBalance is returned for a provider that publishes no balance API.
var ErrNoBalance = errors.New("this provider has no balance API")

var efforts = []string{"minimal", "low", "medium", "high", "xhigh", "max"}

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// Validate says what is wrong with d, nil when nothing is: a name, an
// auth kind, a base address, models with unique ids, a default model
// among them, known efforts from low to high, and prices that are
// finite, not negative and in a currency code.
func (d *ProviderDef) Validate() error {
	switch {
	case d.Name == "":
		return errors.New("provider: name is empty")
	case d.Auth != AuthAPIKey && d.Auth != AuthAccount && d.Auth != AuthNone:
		return fmt.Errorf("provider %q: auth %q is not apiKey, account or none", d.Name, d.Auth)
	case d.DefaultBaseURL == "":
		return fmt.Errorf("provider %q: defaultBaseURL is empty", d.Name)
	case d.API != "" && d.API != APIOpenAI && d.API != APIAnthropic:
		return fmt.Errorf("provider %q: api %q is not openai or anthropic", d.Name, d.API)
	}
	seen := map[string]bool{}
	for _, m := range d.Models {
		if m.ID == "" {
			return fmt.Errorf("provider %q: a model has no id", d.Name)
		}
		if seen[m.ID] {
			return fmt.Errorf("provider %q: model %q is listed twice", d.Name, m.ID)
		}
		seen[m.ID] = true
		if m.ContextWindow < 0 {
			return fmt.Errorf("provider %q: model %q: negative context window", d.Name, m.ID)
		}
		if p := m.Pricing; p != nil {
			if err := p.validate(); err != nil {
				return fmt.Errorf("provider %q: model %q: %w", d.Name, m.ID, err)
			}
		}
	}
	if d.DefaultModel != "" && len(d.Models) > 0 && !seen[d.DefaultModel] {
		return fmt.Errorf("provider %q: default model %q is not among its models", d.Name, d.DefaultModel)
	}
	last := -1
	for _, e := range d.Efforts {
		i := slices.Index(efforts, e)
		if i < 0 {
			return fmt.Errorf("provider %q: effort %q is not one of %v", d.Name, e, efforts)
		}
		if i <= last {
			return fmt.Errorf("provider %q: efforts must go from low to high without repeats", d.Name)
		}
		last = i
	}
	return nil
}

func (p *ModelPricing) validate() error {
	if !currencyCode.MatchString(p.Currency) {
		return fmt.Errorf("pricing: currency %q is not a three-letter code such as CNY or USD", p.Currency)
	}
	for _, v := range []float64{p.InputCacheHit, p.InputCacheMiss, p.Output, p.CacheWrite} {
		if v < 0 || v != v || v > 1e6 {
			return errors.New("pricing: a price is negative, not a number or absurd")
		}
	}
	if pk := p.Peak; pk != nil {
		if pk.Multiplier <= 0 || pk.Multiplier != pk.Multiplier {
			return errors.New("pricing: peak multiplier must be above 0")
		}
		for _, d := range pk.Weekdays {
			if d < 0 || d > 6 {
				return fmt.Errorf("pricing: peak weekday %d is not 0 to 6", d)
			}
		}
		for _, h := range pk.Hours {
			if h[0] < 0 || h[1] > 24 || h[0] >= h[1] {
				return fmt.Errorf("pricing: peak hours %v are not [start, end) within 0 to 24", h)
			}
		}
	}
	return nil
}

// Model returns d's model id, and whether d lists it.
func (d *ProviderDef) Model(id string) (ProviderModel, bool) {
	for _, m := range d.Models {
		if m.ID == id {
			return m, true
		}
	}
	return ProviderModel{}, false
}

var providerIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

var providerRegistry struct {
	mu   sync.Mutex
	defs map[string]ProviderDef
}

// RegisterProvider makes def available to Hearth under id, the name
// suggested for a source of it: it is offered beside the built-in
// presets (hearth models, GET /v1/providers/presets), and a source at its
// base address gets its models, prices, ListModels and Balance. Call it
// from init. It panics on an id that is not 1 to 64 lowercase letters,
// digits, '-', '_' or '.', on a duplicate id, and on a def that fails
// Validate. An id equal to a built-in preset's (deepseek, openai, ...)
// is ignored in favour of the preset.
func RegisterProvider(id string, def ProviderDef) {
	if !providerIDRE.MatchString(id) {
		panic(fmt.Sprintf("sdk.RegisterProvider: bad id %q", id))
	}
	if err := def.Validate(); err != nil {
		panic("sdk.RegisterProvider(" + id + "): " + err.Error())
	}
	providerRegistry.mu.Lock()
	defer providerRegistry.mu.Unlock()
	if _, dup := providerRegistry.defs[id]; dup {
		panic(fmt.Sprintf("sdk.RegisterProvider: provider %q registered twice", id))
	}
	if providerRegistry.defs == nil {
		providerRegistry.defs = map[string]ProviderDef{}
	}
	providerRegistry.defs[id] = def
}

// RegisteredProvider is a provider registered with RegisterProvider.
type RegisteredProvider struct {
	ID  string
	Def ProviderDef
}

// RegisteredProviders returns the registered providers, sorted by id.
func RegisteredProviders() []RegisteredProvider {
	providerRegistry.mu.Lock()
	defer providerRegistry.mu.Unlock()
	out := make([]RegisteredProvider, 0, len(providerRegistry.defs))
	for id, d := range providerRegistry.defs {
		out = append(out, RegisteredProvider{ID: id, Def: d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
