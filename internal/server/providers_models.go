package server

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk"
)

// A model source's models and account balance, asked of the provider
// with the source's own key: GET /v1/providers/{name}/models and GET
// /v1/providers/{name}/balance. The key is never in an answer; the
// provider's error messages are masked before they are.

// SourceModels is GET /v1/providers/{name}/models' answer.
type SourceModels struct {
	Source string `json:"source"`
	// Listed is true when the models came from the provider just now,
	// false when listing failed or the provider cannot list them: the
	// models are then those the built-in preset lists (maybe none).
	Listed bool `json:"listed"`
	// Models carry the preset's pricing and context window where the
	// preset knows the model.
	Models []sdk.ProviderModel `json:"models"`
	// Error says, for the user, why listing failed.
	Error string `json:"error,omitempty"`
}

// SourceBalance is GET /v1/providers/{name}/balance's answer.
type SourceBalance struct {
	Source string `json:"source"`
	// Supported is false for a provider without a balance API that
	// Hearth knows (all but DeepSeek, Kimi and SiliconFlow).
	Supported bool                 `json:"supported"`
	OK        bool                 `json:"ok"`
	Account   *sdk.ProviderAccount `json:"account,omitempty"`
	Error     string               `json:"error,omitempty"`
}

func (s *Server) sourceModels(w http.ResponseWriter, r *http.Request) {
	src, ok := s.namedSource(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, ListSourceModels(r.Context(), src, s.app.Sources.HTTP, s.app.Sources.Secrets().All,
		filepath.Join(s.app.DataDir, config.FileName)))
}

func (s *Server) sourceBalance(w http.ResponseWriter, r *http.Request) {
	src, ok := s.namedSource(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, ReadSourceBalance(r.Context(), src, s.app.Sources.HTTP, s.app.Sources.Secrets().All,
		filepath.Join(s.app.DataDir, config.FileName)))
}

func (s *Server) namedSource(w http.ResponseWriter, r *http.Request) (llm.Source, bool) {
	name := r.PathValue("name")
	st, err := s.sourceState()
	if err != nil {
		s.configFailed(w, err)
		return llm.Source{}, false
	}
	src, ok := st.source(name)
	if !ok {
		writeError(w, http.StatusNotFound, "unknown_provider", "there is no model source "+quote(name))
	}
	return src, ok
}

func providerConfig(src llm.Source, hc *http.Client) sdk.ProviderConfig {
	return sdk.ProviderConfig{BaseURL: src.BaseURL, Model: src.Model, Credential: src.APIKey, HTTP: hc}
}

// ListSourceModels lists src's models from its provider, priced from the
// built-in preset of its address; mask hides secrets in error text and
// configPath is named in advice about a rejected key. The CLI (hearth
// models) and the HTTP API share it.
func ListSourceModels(ctx context.Context, src llm.Source, hc *http.Client, mask func(string) string, configPath string) SourceModels {
	res := SourceModels{Source: src.Name, Models: []sdk.ProviderModel{}}
	preset, known := config.BuiltinProviderFor(src.BaseURL)
	list := llm.ListModelsFunc(src.API, src.BaseURL)
	if known && preset.Def.ListModels != nil {
		list = preset.Def.ListModels
	}
	ms, err := list(ctx, providerConfig(src, hc))
	if err != nil {
		res.Error = mask(terminal.Explain(err, src, configPath))
		if known {
			res.Models = append(res.Models, preset.Def.Models...)
		}
		ChargedPrices(src, res.Models)
		return res
	}
	res.Listed = true
	for _, m := range ms {
		if known {
			if pm, ok := preset.Def.Model(m.ID); ok {
				if m.Name == "" {
					m.Name = pm.Name
				}
				m.ContextWindow, m.InputModalities, m.Pricing = pm.ContextWindow, pm.InputModalities, pm.Pricing
			}
		}
		res.Models = append(res.Models, m)
	}
	ChargedPrices(src, res.Models)
	return res
}

// ChargedPrices sets each model's pricing to what its calls through src
// are charged (llm.PriceOf): the source's own "price" from config.json
// when it has one, for every model, else the preset's price as listed,
// else a list price the model's name has elsewhere. What is shown is
// what cost and budgets count.
func ChargedPrices(src llm.Source, ms []sdk.ProviderModel) {
	for i := range ms {
		m := &ms[i]
		if src.Price == nil && m.Pricing != nil {
			continue // the preset's own, peak hours and source included
		}
		p, ok := llm.PriceOf(src, m.ID)
		if !ok {
			m.Pricing = nil
			continue
		}
		pr := &sdk.ModelPricing{Currency: p.CurrencyCode(), InputCacheMiss: p.Input, InputCacheHit: p.CachedInput,
			Output: p.Output, CacheWrite: p.CacheWrite}
		if pr.InputCacheHit == 0 {
			pr.InputCacheHit = p.Input
		}
		switch {
		case src.Price != nil && len(p.Windows) > 0:
			pr.Source = "config.json (this source's price; its time windows change it by the hour)"
		case src.Price != nil:
			pr.Source = "config.json (this source's price)"
		default:
			pr.Source = "the list price of " + m.ID + " (Hearth's presets)"
			pr.Unverified = true
		}
		m.Pricing = pr
	}
}

// ReadSourceBalance reads src's account balance with its key, for the
// providers that publish a balance API.
func ReadSourceBalance(ctx context.Context, src llm.Source, hc *http.Client, mask func(string) string, configPath string) SourceBalance {
	res := SourceBalance{Source: src.Name}
	fn := llm.BalanceFunc(src.BaseURL)
	if b, ok := config.BuiltinProviderFor(src.BaseURL); ok && b.Def.Balance != nil {
		fn = b.Def.Balance
	}
	if fn == nil {
		res.Error = sdk.ErrNoBalance.Error() + " (Hearth reads DeepSeek's, Kimi's and SiliconFlow's)"
		return res
	}
	res.Supported = true
	acc, err := fn(ctx, providerConfig(src, hc))
	if err != nil {
		var apiErr *llm.APIError
		if errors.As(err, &apiErr) || errors.Is(err, llm.ErrAuth) {
			res.Error = mask(terminal.Explain(err, src, configPath))
		} else {
			res.Error = mask(err.Error())
		}
		return res
	}
	res.OK, res.Account = true, &acc
	return res
}
