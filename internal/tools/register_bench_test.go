package tools

import (
	"fmt"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// benchRegister registers n tools of one plugin, one call each, as a child
// plugin's tools.register messages arrive, half named after the plugin
// (offered under their short names) and half not.
func benchRegister(b *testing.B, n int) {
	params := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}
	defs := make([]sdk.ToolDef, n)
	for i := range defs {
		name := fmt.Sprintf("tool%05d", (i*7919)%n) // not in sorted order
		if i%2 == 0 {
			name = "big_" + name
		}
		defs[i] = sdk.ToolDef{Name: name, Description: "d", Parameters: params}
	}
	b.ReportAllocs()
	for b.Loop() {
		r := NewRegistry()
		for _, d := range defs {
			if _, err := r.RegisterPrompt("big", d, echo); err != nil {
				b.Fatal(err)
			}
		}
		if len(r.List()) != n {
			b.Fatal("missing tools")
		}
	}
}

func BenchmarkRegister1000(b *testing.B) { benchRegister(b, 1000) }
func BenchmarkRegister2000(b *testing.B) { benchRegister(b, 2000) }
