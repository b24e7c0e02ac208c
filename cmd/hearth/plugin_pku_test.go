package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/wire"
)

// `hearth plugin show` lists a PKU plugin's preferences and data sources,
// and says its model providers and speech without transcribe are not supported yet.
func TestShowPKU(t *testing.T) {
	var out strings.Builder
	line := func(k, v string) { fmt.Fprintf(&out, "%s: %s\n", k, v) }
	showPKU("pay", nil, line)
	if out.Len() != 0 {
		t.Fatalf("nil manifest printed %q", out.String())
	}
	showPKU("pay", &wire.PKUManifest{
		Preferences: map[string]wire.PreferenceDef{"mode": {Title: "模式", Kind: "choice"}},
		DataSources: map[string]wire.DataSourceDef{"today": {Title: "今天", Tool: "status", TTLMS: 60000}},
		Providers:   map[string]wire.ProviderDef{"x": {Name: "X"}},
		Speech:      map[string]wire.SpeechDef{"asr": {Name: "S"}},
		OCR:         map[string]wire.OCRDef{"doc": {Name: "O", CredentialFrom: "x"}},
	}, line)
	want := `preferences: pay.mode (模式, choice)
data sources: today (今天, tool status, every 60s)
unsupported: provider pay.x (X): not supported by this host yet
unsupported: speech pay.asr (S): without transcribe: not supported by this host yet
`
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}
