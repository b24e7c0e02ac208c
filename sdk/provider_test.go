package sdk

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func validDef() ProviderDef {
	return ProviderDef{
		Name: "Example", Auth: AuthAPIKey, DefaultBaseURL: "https://api.example.com/v1",
		Models: []ProviderModel{{ID: "a", Pricing: &ModelPricing{Currency: "CNY", InputCacheHit: 0.2, InputCacheMiss: 2, Output: 3,
			Peak: &PricePeak{Multiplier: 0.5, UTCOffsetMinutes: 480, Weekdays: []int{0, 1, 2, 3, 4, 5, 6}, Hours: [][2]int{{0, 8}}}}}, {ID: "b"}},
		DefaultModel: "a", Efforts: []string{"low", "high", "max"},
	}
}

func TestProviderDefValidate(t *testing.T) {
	if err := (&ProviderDef{Name: "Ollama", Auth: AuthNone, DefaultBaseURL: "http://127.0.0.1:11434/v1"}).Validate(); err != nil {
		t.Fatalf("a provider with no models listed: %v", err)
	}
	d := validDef()
	if err := d.Validate(); err != nil {
		t.Fatalf("valid: %v", err)
	}
	tests := []struct {
		name   string
		change func(*ProviderDef)
		want   string
	}{
		{"no name", func(d *ProviderDef) { d.Name = "" }, "name is empty"},
		{"auth", func(d *ProviderDef) { d.Auth = "password" }, "auth"},
		{"no base", func(d *ProviderDef) { d.DefaultBaseURL = "" }, "defaultBaseURL"},
		{"api", func(d *ProviderDef) { d.API = "grpc" }, "api"},
		{"no id", func(d *ProviderDef) { d.Models[1].ID = "" }, "no id"},
		{"twice", func(d *ProviderDef) { d.Models[1].ID = "a" }, "twice"},
		{"default", func(d *ProviderDef) { d.DefaultModel = "c" }, "default model"},
		{"effort", func(d *ProviderDef) { d.Efforts = []string{"turbo"} }, "effort"},
		{"effort order", func(d *ProviderDef) { d.Efforts = []string{"high", "low"} }, "low to high"},
		{"currency", func(d *ProviderDef) { d.Models[0].Pricing.Currency = "yuan" }, "currency"},
		{"negative", func(d *ProviderDef) { d.Models[0].Pricing.Output = -1 }, "negative"},
		{"nan", func(d *ProviderDef) { d.Models[0].Pricing.InputCacheMiss = math.NaN() }, "not a number"},
		{"peak multiplier", func(d *ProviderDef) { d.Models[0].Pricing.Peak.Multiplier = 0 }, "multiplier"},
		{"peak day", func(d *ProviderDef) { d.Models[0].Pricing.Peak.Weekdays = []int{7} }, "weekday"},
		{"peak hours", func(d *ProviderDef) { d.Models[0].Pricing.Peak.Hours = [][2]int{{8, 8}} }, "hours"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := validDef()
			tt.change(&d)
			err := d.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want one with %q", err, tt.want)
			}
		})
	}
}

// The JSON field names are the PKU document's, so a manifest's
// "providers" entry decodes into a ProviderDef.
func TestProviderDefPKUJSON(t *testing.T) {
	const manifest = `{"name":"Example","description":"d","auth":"apiKey","defaultBaseURL":"https://api.example.com/v1",
		"editableBaseURL":true,"models":[{"id":"example-large","name":"Example Large","contextWindow":128000,
		"inputModalities":["text","image"],"pricing":{"currency":"USD","inputCacheHit":0.1,"inputCacheMiss":1,"output":2,
		"peak":{"multiplier":2,"utcOffsetMinutes":480,"weekdays":[1,2,3,4,5],"hours":[[9,18]]},"source":"https://example.com/pricing"}}],
		"defaultModel":"example-large","efforts":["low","high"],"credentialHint":"a key from example.com"}`
	var d ProviderDef
	if err := json.Unmarshal([]byte(manifest), &d); err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	m, ok := d.Model("example-large")
	if !ok || m.ContextWindow != 128000 || m.Pricing.Output != 2 || m.Pricing.Peak.Hours[0] != [2]int{9, 18} ||
		!d.EditableBaseURL || d.CredentialHint == "" || len(m.InputModalities) != 2 {
		t.Fatalf("decoded %+v", d)
	}
}

func TestRegisterProvider(t *testing.T) {
	panics := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	d := validDef()
	RegisterProvider("sdk-test-provider", d)
	panics("duplicate", func() { RegisterProvider("sdk-test-provider", d) })
	panics("bad id", func() { RegisterProvider("Bad ID", d) })
	panics("empty id", func() { RegisterProvider("", d) })
	bad := validDef()
	bad.Auth = "password"
	panics("invalid def", func() { RegisterProvider("sdk-test-invalid", bad) })
	var found bool
	for _, r := range RegisteredProviders() {
		if r.ID == "sdk-test-invalid" {
			t.Error("an invalid def was registered")
		}
		found = found || r.ID == "sdk-test-provider" && r.Def.Name == "Example"
	}
	if !found {
		t.Error("the registered provider is not listed")
	}
}
