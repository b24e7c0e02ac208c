package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/server"
	"github.com/hearth-agent/hearth/sdk"
)

const modelsUsage = `Usage: hearth models [list [SOURCE] | test [SOURCE] | balance [SOURCE]] [--json]

The model sources and providers, their models and published prices.

  hearth models                 the configured sources (with the price of
                                their model) and the built-in provider
                                presets with their models and prices, per
                                million tokens in the provider's currency
                                (a price marked * is unverified)
  hearth models list [SOURCE]   ask the source's provider for its models,
                                with the key (default: the current source)
  hearth models test [SOURCE]   send the source one tiny request with its
                                key: ok and the latency, or what is wrong
  hearth models balance [SOURCE]  the account balance (DeepSeek, Kimi,
                                SiliconFlow; others have no balance API)

Keys are never printed. Exit status: 0 ok, 1 the provider refused or
failed (a test or balance that did not succeed), 2 usage (an unknown
source or subcommand, no source configured).
`

const modelsExamples = `
Examples:
  hearth models
  hearth models test
  hearth models test deepseek
  hearth models balance deepseek --json
  hearth models list ollama
`

// modelsSource is one configured source in hearth models --json.
type modelsSource struct {
	Name    string            `json:"name"`
	BaseURL string            `json:"base_url"`
	Model   string            `json:"model"`
	API     string            `json:"api"`
	Current bool              `json:"current"`
	KeySet  bool              `json:"key_set"`
	Preset  string            `json:"preset,omitempty"` // the built-in provider of its address
	Price   *sdk.ModelPricing `json:"price,omitempty"`
}

// modelsPreset is one built-in provider in hearth models --json.
type modelsPreset struct {
	Name       string          `json:"name"`
	HasBalance bool            `json:"has_balance"`
	Provider   sdk.ProviderDef `json:"provider"`
}

// runModels is hearth models.
func runModels(ctx context.Context, a *app.App, f *flags, rest []string, cio *cmdIO) int {
	sub := "catalog"
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	if sub == "catalog" && len(rest) > 0 || sub != "catalog" && len(rest) > 1 {
		fmt.Fprintf(cio.err, "hearth models: unexpected argument %q (hearth models -h)\n", rest[len(rest)-1])
		return 2
	}
	switch sub {
	case "catalog":
		return modelsCatalog(a, f.jsonOut, cio.out)
	case "list", "test", "balance":
	default:
		fmt.Fprintf(cio.err, "hearth models: unknown subcommand %q (list, test, balance; hearth models -h)\n", sub)
		return 2
	}
	src, code := modelsPickSource(a, rest, cio.err)
	if code != 0 {
		return code
	}
	mask := a.Sources.Secrets().All
	cfgPath := filepath.Join(a.DataDir, config.FileName)
	switch sub {
	case "list":
		res := server.ListSourceModels(ctx, src, a.Sources.HTTP, mask, cfgPath)
		if f.jsonOut {
			writeJSON(cio.out, res)
		} else {
			if res.Error != "" {
				fmt.Fprintf(cio.err, "hearth models: listing %s's models failed: %s\n", src.Name, res.Error)
			}
			printModels(cio.out, res.Models)
		}
		if !res.Listed {
			return 1
		}
		return 0
	case "test":
		res := server.TryProvider(ctx, a, src, a.Logger)
		if f.jsonOut {
			writeJSON(cio.out, struct {
				Source string `json:"source"`
				server.ProviderTest
			}{src.Name, res})
		} else if res.OK {
			fmt.Fprintf(cio.out, "ok: %s answered with %s in %d ms\n", src.Name, src.Model, res.LatencyMS)
		} else {
			fmt.Fprintf(cio.out, "failed: %s (%s): %s\n", src.Name, src.Model, res.Error)
		}
		if !res.OK {
			return 1
		}
		return 0
	default: // balance
		res := server.ReadSourceBalance(ctx, src, a.Sources.HTTP, mask, cfgPath)
		if f.jsonOut {
			writeJSON(cio.out, res)
		} else if res.OK {
			for _, b := range res.Account.Balances {
				line := fmt.Sprintf("%s: %.2f %s", src.Name, b.Total, b.Currency)
				if b.Granted != nil && b.ToppedUp != nil {
					line += fmt.Sprintf(" (granted %.2f, topped up %.2f)", *b.Granted, *b.ToppedUp)
				}
				fmt.Fprintln(cio.out, line)
			}
			if len(res.Account.Balances) == 0 {
				fmt.Fprintf(cio.out, "%s: no balance reported\n", src.Name)
			}
			if !res.Account.Available {
				fmt.Fprintf(cio.out, "%s: the provider says the account cannot make calls now\n", src.Name)
			}
		} else {
			fmt.Fprintf(cio.err, "hearth models: %s: %s\n", src.Name, res.Error)
		}
		if !res.OK {
			return 1
		}
		return 0
	}
}

// modelsPickSource is the source named in rest, or the current one.
func modelsPickSource(a *app.App, rest []string, stderr io.Writer) (llm.Source, int) {
	if len(rest) == 0 {
		src, ok := a.Sources.Current()
		if !ok {
			fmt.Fprint(stderr, "hearth models: no model source is configured (run hearth, or see hearth help config)\n")
			return llm.Source{}, 2
		}
		return src, 0
	}
	src, ok := a.Sources.Source(rest[0])
	if !ok {
		fmt.Fprintf(stderr, "hearth models: there is no model source %q (sources: %s)\n", rest[0],
			strings.Join(a.Sources.ListSources(), ", "))
		return llm.Source{}, 2
	}
	return src, 0
}

func modelsCatalog(a *app.App, asJSON bool, out io.Writer) int {
	current := a.Sources.CurrentSource()
	var sources []modelsSource
	for _, name := range a.Sources.ListSources() {
		src, ok := a.Sources.Source(name)
		if !ok {
			continue
		}
		api := src.API
		if api == "" {
			api = llm.APIOpenAI
		}
		ms := modelsSource{Name: name, BaseURL: src.BaseURL, Model: src.Model, API: api, Current: name == current, KeySet: src.APIKey != ""}
		one := []sdk.ProviderModel{{ID: src.Model}}
		if b, ok := config.BuiltinProviderFor(src.BaseURL); ok {
			ms.Preset = b.Preset.Name
			if m, ok := b.Def.Model(src.Model); ok {
				one[0].Pricing = m.Pricing
			}
		}
		server.ChargedPrices(src, one) // what its calls are charged at
		ms.Price = one[0].Pricing
		sources = append(sources, ms)
	}
	var presets []modelsPreset
	for _, b := range config.BuiltinProviders() {
		if b.Def.Models == nil {
			b.Def.Models = []sdk.ProviderModel{}
		}
		presets = append(presets, modelsPreset{Name: b.Preset.Name, HasBalance: b.Def.Balance != nil, Provider: b.Def})
	}
	if asJSON {
		if sources == nil {
			sources = []modelsSource{}
		}
		return writeJSON(out, struct {
			Sources []modelsSource `json:"sources"`
			Presets []modelsPreset `json:"presets"`
		}{sources, presets})
	}
	if len(sources) == 0 {
		fmt.Fprint(out, "No model source is configured: run hearth to set one up.\n\n")
	} else {
		var t table
		t.row("SOURCE", "MODEL", "ADDRESS", "KEY", "PRICE "+priceUnit)
		for _, s := range sources {
			name := s.Name
			if s.Current {
				name += " *current"
			}
			key := "none"
			if s.KeySet {
				key = "set"
			}
			t.row(name, s.Model, s.BaseURL, key, priceText(s.Price))
		}
		t.write(out)
		fmt.Fprintln(out)
	}
	// The presets' models in one table, each preset's under its heading.
	t := table{indent: "  "}
	t.row(modelsHeader...)
	for _, p := range presets {
		d := p.Provider
		extra := ""
		if p.HasBalance {
			extra = ", balance"
		}
		t.line(fmt.Sprintf("%s (%s) %s%s", p.Name, d.Name, d.DefaultBaseURL, extra))
		modelRows(&t, d.Models)
	}
	t.write(out)
	fmt.Fprintln(out, "\n* unverified: Hearth could not confirm the price on the provider's page (docs/providers.md).")
	return 0
}

// priceUnit says what priceText's numbers are.
const priceUnit = "(hit/miss/out per 1M)"

// modelsHeader heads a table of models.
var modelsHeader = []string{"MODEL", "CONTEXT", "PRICE " + priceUnit}

// printModels prints a provider's models as a table with its header.
func printModels(out io.Writer, ms []sdk.ProviderModel) {
	t := table{indent: "  "}
	if len(ms) > 0 {
		t.row(modelsHeader...)
	}
	modelRows(&t, ms)
	t.write(out)
}

// modelRows adds a row to t for each model: id, context window, price.
func modelRows(t *table, ms []sdk.ProviderModel) {
	if len(ms) == 0 {
		t.line("  (no models listed: a local server has what you pulled)")
		return
	}
	for _, m := range ms {
		ctxw := "-"
		if m.ContextWindow > 0 {
			ctxw = fmt.Sprintf("%dK", m.ContextWindow/1000)
		}
		t.row(m.ID, ctxw, priceText(m.Pricing))
	}
}

// priceText is a price as hit/miss/output per million tokens.
func priceText(p *sdk.ModelPricing) string {
	if p == nil {
		return "-"
	}
	s := fmt.Sprintf("%s %g/%g/%g", p.Currency, p.InputCacheHit, p.InputCacheMiss, p.Output)
	if p.Peak != nil {
		s += fmt.Sprintf(", ×%g at peak", p.Peak.Multiplier)
	}
	if p.Unverified {
		s += " *"
	}
	return s
}
