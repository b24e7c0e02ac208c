package pluginhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// memPolicy is a LegacyPolicy in memory.
type memPolicy struct {
	mu    sync.Mutex
	modes map[string]sdk.Mode
}

func (m *memPolicy) Override(tool string) sdk.Mode {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.modes[tool]
}

func (m *memPolicy) SetOverride(_ context.Context, tool string, mode sdk.Mode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.modes[tool] = mode
	return nil
}

// legacyToolPlugin writes, into parent/folder, a raw node child with id
// id that registers the tools regs and maps the old tool ids in tools to
// them in its legacy block.
func legacyToolPlugin(t *testing.T, parent, folder, id string, ids []string, tools map[string]string, regs ...string) string {
	t.Helper()
	dir := filepath.Join(parent, folder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	man, _ := json.Marshal(map[string]any{"id": id, "name": id, "version": "1.0.0", "scopes": []string{},
		"legacy": map[string]any{"pluginIds": ids, "tools": tools}})
	var defs []string
	for _, r := range regs {
		b, _ := json.Marshal(map[string]any{"name": r, "description": r, "effect": "read",
			"parameters": map[string]any{"type": "object"}})
		defs = append(defs, string(b))
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"id":"`+id+`","command":["node","main.mjs"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	main := `import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const defs = [` + strings.Join(defs, ",") + `];
const waiting = new Map();
createInterface({ input: process.stdin }).on('line', async (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') {
    let n = 0;
    for (const d of defs) {
      const rid = 'r' + (n++);
      await new Promise((res) => { waiting.set(rid, res); send({ jsonrpc: '2.0', id: rid, method: 'tools.register', params: d }); });
    }
    send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 1, sdkVersion: 'raw', name: '` + id + `', manifest: ` + string(man) + ` } });
  } else if (msg.id !== undefined && msg.method) {
    send({ jsonrpc: '2.0', id: msg.id, result: msg.method === '$/ping' ? 'pong' : {} });
  } else if (waiting.has(msg.id)) {
    waiting.get(msg.id)(); waiting.delete(msg.id);
  }
});
`
	if err := os.WriteFile(filepath.Join(dir, "main.mjs"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var oldCardTools = map[string]string{"victim.getBalance": "cardBalance", "victim.history": "cardHistory", "victim.topup": "cardBalance", "victim.gone": "notRegistered"}

// The new version of a plugin, in the folder the old id was bound to,
// takes the owner's modes of the old tools (the strictest where two map
// to one), once: a mode the owner sets later on the new tool stands, and
// the carrying is recorded for `hearth plugin show`.
func TestLegacyToolModesCarriedOnce(t *testing.T) {
	f, _, bind := legacyEnv(t)
	if err := bind(context.Background(), "victim", "card"); err != nil {
		t.Fatal(err)
	}
	pol := &memPolicy{modes: map[string]sdk.Mode{"victim__getBalance": sdk.ModeAsk, "victim__topup": sdk.ModeOff, "victim__history": sdk.ModeAuto, "victim__gone": sdk.ModeOff}}
	f.opts.Policy = pol
	parent := t.TempDir()
	dir := legacyToolPlugin(t, parent, "card", "card2", []string{"victim"}, oldCardTools, "cardBalance", "cardHistory")
	first, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	ready(t, first)
	first.Stop()
	if got := pol.Override("card2__cardBalance"); got != sdk.ModeOff {
		t.Errorf("cardBalance %q, want off (the strictest of ask and off)", got)
	}
	if got := pol.Override("card2__cardHistory"); got != sdk.ModeAuto {
		t.Errorf("cardHistory %q, want auto", got)
	}
	if got := pol.Override("card2__notRegistered"); got != "" {
		t.Errorf("a tool the plugin did not register got mode %q", got)
	}
	lines := LegacyLines(f.data, "card2")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "policy of victim__getBalance carried over to card2__cardBalance: off (") {
		t.Fatalf("record %q", lines)
	}

	// Once: the owner then changes the new tool's mode and the old one's;
	// the next start carries nothing again.
	pol.SetOverride(context.Background(), "card2__cardBalance", sdk.ModeAuto)
	pol.SetOverride(context.Background(), "card2__cardHistory", "")
	delete(pol.modes, "card2__cardHistory")
	pol.SetOverride(context.Background(), "victim__history", sdk.ModeOff)
	startLegacy(t, f, dir)
	if got := pol.Override("card2__cardBalance"); got != sdk.ModeAuto {
		t.Errorf("cardBalance %q after a second start, want the owner's auto", got)
	}
	if got := pol.Override("card2__cardHistory"); got != "" {
		t.Errorf("cardHistory %q carried a second time", got)
	}
	if n := len(LegacyLines(f.data, "card2")); n != 3 {
		t.Errorf("%d record lines after a second start", n)
	}
}

// An old id that is another plugin's (a live one holding the name, or one
// bound to another folder) gives no tool modes: its tools keep theirs and
// the new plugin's stay unset.
func TestLegacyToolModesOfAnotherPluginNotCarried(t *testing.T) {
	f, _, bind := legacyEnv(t)
	if err := bind(context.Background(), "victim", "weather-plugin"); err != nil {
		t.Fatal(err)
	}
	pol := &memPolicy{modes: map[string]sdk.Mode{"victim__getBalance": sdk.ModeAuto}}
	f.opts.Policy = pol
	startLegacy(t, f, legacyToolPlugin(t, t.TempDir(), "thief", "thief", []string{"victim"}, oldCardTools, "cardBalance"))
	if got := pol.Override("thief__cardBalance"); got != "" {
		t.Errorf("thief took mode %q from an id bound to another folder", got)
	}

	f2, _, _ := legacyEnv(t)
	pol2 := &memPolicy{modes: map[string]sdk.Mode{"victim__getBalance": sdk.ModeAuto}}
	f2.opts.Policy = pol2
	parent := t.TempDir()
	startLegacy(t, f2, legacyToolPlugin(t, parent, "victim", "victim", nil, nil, "getBalance")) // the old plugin, live
	startLegacy(t, f2, legacyToolPlugin(t, parent, "card", "card2", []string{"victim"}, oldCardTools, "cardBalance"))
	if got := pol2.Override("card2__cardBalance"); got != "" {
		t.Errorf("card2 took mode %q from a live plugin", got)
	}
	if got := pol2.Override("victim__getBalance"); got != sdk.ModeAuto {
		t.Errorf("the live plugin's mode became %q", got)
	}
	if !strings.Contains(f2.logs.String(), "legacy id not adopted") {
		t.Errorf("no log of the refusal:\n%s", f2.logs.String())
	}
}
