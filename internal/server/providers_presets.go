package server

import (
	"net/http"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/sdk"
)

// ProviderPreset is a well-known provider the onboarding offers: what to
// fill in for it, its wire format, and where its keys are made. The list
// is config.Presets, which hearth's first run in a terminal offers too.
type ProviderPreset struct {
	// Name is the source name suggested for it (PUT /v1/providers/{name}).
	Name    string `json:"name"`
	Label   string `json:"label"`
	LabelZH string `json:"label_zh"`
	BaseURL string `json:"base_url"`
	// Model is the default model; empty for a local server, whose models
	// are whatever the user pulled (ModelHint is an example).
	Model     string `json:"model"`
	ModelHint string `json:"model_hint,omitempty"`
	// NeedsKey is false for local servers, which take any key or none.
	NeedsKey bool `json:"needs_key"`
	// KeyURL is the page where the provider's API keys are made.
	KeyURL string `json:"key_url,omitempty"`
	// API is the wire format to save with the source (PUT's "api"):
	// absent for OpenAI's chat completions, "anthropic" for Anthropic's
	// Messages API.
	API string `json:"api,omitempty"`
	// Provider is the preset as a provider definition (the PKU
	// ProviderDef's fields): its models with their published prices
	// (each with its source and date, and "unverified" where Hearth
	// could not confirm it), reasoning efforts and credential hint.
	Provider sdk.ProviderDef `json:"provider"`
	// HasBalance says whether GET /v1/providers/{name}/balance can read
	// this provider's balance.
	HasBalance bool `json:"has_balance"`
}

// PresetList is GET /v1/providers/presets' answer.
type PresetList struct {
	Presets []ProviderPreset `json:"presets"`
}

func (s *Server) listPresets(w http.ResponseWriter, r *http.Request) {
	list := PresetList{Presets: []ProviderPreset{}}
	for _, b := range config.BuiltinProviders() {
		p := b.Preset
		if b.Def.Models == nil {
			b.Def.Models = []sdk.ProviderModel{}
		}
		list.Presets = append(list.Presets, ProviderPreset{Name: p.Name, Label: p.Label, LabelZH: p.LabelZH,
			BaseURL: p.BaseURL, Model: p.Model, ModelHint: p.ModelHint, NeedsKey: p.NeedsKey, KeyURL: p.KeyURL,
			API: p.API, Provider: b.Def, HasBalance: b.Def.Balance != nil})
	}
	writeJSON(w, http.StatusOK, list)
}
