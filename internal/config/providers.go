package config

import (
	"net/url"
	"slices"
	"strings"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk"
)

// BuiltinProvider is a preset as a provider definition: the onboarding's
// Preset with its models, their published prices, reasoning efforts,
// and the functions that list its models and read its balance.
type BuiltinProvider struct {
	Preset Preset
	Def    sdk.ProviderDef
}

// BuiltinProviders returns the presets as provider definitions, in
// Presets' order, then the providers compiled-in plugins registered
// (sdk.RegisterProvider), by id. Their base addresses are editable; ListModels is set
// for all (OpenAI's GET /models, Anthropic's GET /v1/models, Ollama's
// /api/tags), Balance for DeepSeek, Kimi and SiliconFlow only.
func BuiltinProviders() []BuiltinProvider {
	var out []BuiltinProvider
	for _, p := range Presets() {
		auth := sdk.AuthAPIKey
		if !p.NeedsKey {
			auth = sdk.AuthNone
		}
		api := sdk.APIOpenAI
		if p.API == llm.APIAnthropic {
			api = sdk.APIAnthropic
		}
		hint := ""
		if p.KeyURL != "" {
			hint = "An API key made at " + p.KeyURL
		}
		desc := p.Label
		if !p.NeedsKey {
			desc += ": a server on this machine; any OpenAI-compatible address works the same"
		}
		d := sdk.ProviderDef{
			Name: p.Label, Description: desc, Auth: auth,
			DefaultBaseURL: p.BaseURL, EditableBaseURL: true, API: api,
			Models: llm.PresetModels(p.Name), DefaultModel: p.Model,
			Efforts: llm.PresetEfforts(p.Name), CredentialHint: hint,
			ListModels: llm.ListModelsFunc(p.API, p.BaseURL),
			Balance:    llm.BalanceFunc(p.BaseURL),
		}
		out = append(out, BuiltinProvider{Preset: p, Def: d})
	}
	for _, r := range sdk.RegisteredProviders() {
		if slices.ContainsFunc(out, func(b BuiltinProvider) bool { return b.Preset.Name == r.ID }) {
			continue // a preset's name: the preset wins
		}
		d := r.Def
		api := ""
		if d.API == sdk.APIAnthropic {
			api = llm.APIAnthropic
		}
		if d.ListModels == nil {
			d.ListModels = llm.ListModelsFunc(api, d.DefaultBaseURL)
		}
		p := Preset{Name: r.ID, Label: d.Name, LabelZH: d.Name, BaseURL: d.DefaultBaseURL, Model: d.DefaultModel,
			NeedsKey: d.Auth != sdk.AuthNone, API: api}
		if d.DefaultModel == "" && len(d.Models) > 0 {
			p.Model = d.Models[0].ID
		}
		out = append(out, BuiltinProvider{Preset: p, Def: d})
	}
	return out
}

// BuiltinProviderFor returns the preset whose base address has baseURL's
// host (and port, for local servers), if any: what a configured source
// is an instance of.
func BuiltinProviderFor(baseURL string) (BuiltinProvider, bool) {
	host := hostPort(baseURL)
	if host == "" {
		return BuiltinProvider{}, false
	}
	for _, b := range BuiltinProviders() {
		if strings.EqualFold(hostPort(b.Preset.BaseURL), host) {
			return b, true
		}
	}
	return BuiltinProvider{}, false
}

// hostPort is u's host with its port, "" when u is not an address.
func hostPort(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Host
}
