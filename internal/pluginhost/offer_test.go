//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// holdTools is a plugin of tools only, whose Start waits while the file
// "hold" is in its data directory (waitHold).
type holdTools struct{ name string }

func newHoldTools(name string, _ map[string]any) (sdk.Plugin, error) { return &holdTools{name}, nil }

func (p *holdTools) Name() string { return p.name }
func (p *holdTools) Stop() error  { return nil }
func (p *holdTools) Start(s *sdk.PluginSDK) error {
	waitHold(s)
	return s.RegisterToolContext("echo", sdk.ToolDef{Description: "Echoes.", Effect: sdk.EffectRead},
		func(_ context.Context, _ *sdk.ToolContext, args map[string]any) (any, error) {
			return map[string]any{"echo": args["text"]}, nil
		})
}

// startOffered starts the plugin in dir with OfferCached and stops it at
// the end of the test.
func (f *fixture) startOffered(t *testing.T, dir string) *Process {
	t.Helper()
	o := f.opts
	o.OfferCached = true
	p, err := Start(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// readOffer reads the cache record of plugin name.
func (f *fixture) readOffer(t *testing.T, name string) offerRecord {
	t.Helper()
	b, err := os.ReadFile(offerPath(f.data, name))
	if err != nil {
		t.Fatal(err)
	}
	var rec offerRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// forgeOffer writes a cache record for the plugin in dir that matches
// its files and says it registered only tools (defs): what a stale cache
// looks like when the plugin changed without its files changing.
func (f *fixture) forgeOffer(t *testing.T, dir string, defs ...sdk.ToolDef) {
	t.Helper()
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := offerRecord{Version: offerVersion, Print: offerPrint(dir, m), Plain: true, Manifest: json.RawMessage("null")}
	for _, d := range defs {
		c, err := cached(wire.ToolDef{ToolDef: d})
		if err != nil {
			t.Fatal(err)
		}
		rec.Tools = append(rec.Tools, c)
	}
	b, _ := json.Marshal(rec)
	if err := os.MkdirAll(filepath.Dir(offerPath(f.data, m.PluginName())), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(offerPath(f.data, m.PluginName()), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A plugin of tools only is offered from its cache while it starts: its
// tools are there before its handshake, and a call waits for it, then
// runs in the plugin.
func TestOfferFromCache(t *testing.T) {
	f := newFixture(t)
	dir := pluginDir(t, "quick", "holdtools")
	p := f.startOffered(t, dir) // no cache yet: an ordinary start
	if p.offered() {
		t.Fatal("offered without a cache")
	}
	ready(t, p)
	p.Stop()
	if rec := f.readOffer(t, "quick"); !rec.Plain || len(rec.Tools) != 1 || rec.Print == "" {
		t.Fatalf("record after a handshake of tools only: %+v", rec)
	}

	before, err := os.Stat(offerPath(f.data, "quick"))
	if err != nil {
		t.Fatal(err)
	}
	hold := f.holdFile(t, "quick")
	p = f.startOffered(t, dir)
	if !p.offered() {
		t.Fatal("not offered from a matching cache")
	}
	tool, ok := f.k.Tools().Lookup("quick__echo")
	if !ok || tool.Def.Description != "Echoes." {
		t.Fatalf("the cached tool is not offered before the handshake: %v", ok)
	}
	if st := p.Status(); st.State != Starting {
		t.Fatalf("the plugin should still be starting (held): %s", st.State)
	}
	res := make(chan toolcall.Result, 1)
	go func() { res <- callTool(f.k, "quick__echo", `{"text":"hi"}`) }()
	os.Remove(hold) // the handshake ends; the waiting call goes on
	if r := <-res; r.IsError || !strings.Contains(r.Content, `"echo":"hi"`) {
		t.Fatalf("the call of the cached tool: %+v", r)
	}
	ready(t, p)
	if r := callTool(f.k, "quick__echo", `{"text":"again"}`); r.IsError || !strings.Contains(r.Content, "again") {
		t.Fatalf("after the handshake: %+v", r)
	}
	// Registered as the record has it: the record's schema is kept, not
	// compiled again when the offer is confirmed.
	if tool, _ := f.k.Tools().Lookup("quick__echo"); !tool.Params.IsDeferred() {
		t.Fatal("confirming the offer compiled the schema of a tool registered as recorded")
	}
	// Nothing new to record: the record is not written again.
	p.Stop()
	if after, err := os.Stat(offerPath(f.data, "quick")); err != nil || !os.SameFile(before, after) {
		t.Fatalf("the unchanged record was written again (%v)", err)
	}
}

// A cache that no longer says what the plugin registers (it changed
// without its files changing) offers tools that never run: the call
// fails with a reason, and the plugin's real tools replace them.
func TestOfferStaleCacheReconciles(t *testing.T) {
	f := newFixture(t)
	dir := pluginDir(t, "stale", "holdtools")
	f.forgeOffer(t, dir, sdk.ToolDef{Name: "echo", Description: "Old text.", Effect: sdk.EffectRead},
		sdk.ToolDef{Name: "gone", Effect: sdk.EffectRead})
	hold := f.holdFile(t, "stale")
	p := f.startOffered(t, dir)
	if !p.offered() {
		t.Fatal("not offered")
	}
	res := make(chan toolcall.Result, 2)
	go func() { res <- callTool(f.k, "stale__echo", `{"text":"hi"}`) }()
	go func() { res <- callTool(f.k, "stale__gone", `{}`) }()
	os.Remove(hold)
	for range 2 {
		if r := <-res; !r.IsError || !strings.Contains(r.Content, "changed since its tools were listed") {
			t.Fatalf("a call of a stale cached tool ran or failed otherwise: %+v", r)
		}
	}
	ready(t, p)
	if _, ok := f.k.Tools().Lookup("stale__gone"); ok {
		t.Fatal("a tool the plugin no longer registers is still offered")
	}
	if tool, ok := f.k.Tools().Lookup("stale__echo"); !ok || tool.Def.Description != "Echoes." {
		t.Fatalf("the real tool did not replace the cached one: %v %q", ok, tool.Def.Description)
	} else if tool.Params.IsDeferred() {
		t.Fatal("a tool registered otherwise than recorded kept the record's schema")
	}
	if r := callTool(f.k, "stale__echo", `{"text":"now"}`); r.IsError || !strings.Contains(r.Content, "now") {
		t.Fatalf("the real tool: %+v", r)
	}
	p.Stop() // the record is written once the plugin runs, before it serves
	if rec := f.readOffer(t, "stale"); len(rec.Tools) != 1 || !rec.Plain {
		t.Fatalf("the cache was not rewritten from the handshake: %+v", rec)
	}
}

// A guard is never skipped because it was offered from a (stale) cache
// and is slow to start: a call in the first turn waits for its handshake
// and, since the plugin turned out to check calls, does not run.
func TestOfferStaleCacheKeepsGuards(t *testing.T) {
	for _, mode := range []string{"stageguard", "guard"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t, buyEvil()...)
			f.eng.HookTimeout = time.Minute // calls wait for the guard
			bought := f.countingShop(t)
			dir := pluginDir(t, mode, mode)
			f.forgeOffer(t, dir, sdk.ToolDef{Name: "crash", Effect: sdk.EffectRead})
			hold := f.holdFile(t, mode)
			f.releaseOnCall(t, hold)
			p := f.startOffered(t, dir)
			if !p.offered() {
				t.Fatal("not offered")
			}
			out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "buy"}})
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			if n := bought.Load(); n != 0 {
				t.Fatalf("a guard offered from a stale cache let %d call(s) run before it was up", n)
			}
			ready(t, p)
			p.Stop()
			if rec := f.readOffer(t, mode); rec.Plain {
				t.Fatal("a guard was recorded as tools only")
			}
		})
	}
}

// A plugin with a stage handler is recorded as more than tools, and so
// waited for; a plugin whose files changed is not offered either.
func TestOfferOnlyWhenPlainAndUnchanged(t *testing.T) {
	f := newFixture(t)
	dir := pluginDir(t, "staged", "ok") // registers a pre_action handler
	p := f.startOffered(t, dir)
	ready(t, p)
	p.Stop()
	if rec := f.readOffer(t, "staged"); rec.Plain {
		t.Fatal("a plugin with a stage handler was recorded as tools only")
	}
	if p := f.startOffered(t, dir); p.offered() {
		t.Fatal("a plugin with a stage handler was offered from the cache")
	}

	dir = pluginDir(t, "quick", "holdtools")
	p = f.startOffered(t, dir)
	ready(t, p)
	p.Stop()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := f.startOffered(t, dir); p.offered() {
		t.Fatal("offered although a file of the plugin changed")
	}
}

// A plugin stopped during its handshake (hearth ask done before a plugin
// it did not need was up) is stopped at once, not after the handshake's
// deadline: with an hour's deadline, Stop returning at all shows it.
func TestStopDuringHandshake(t *testing.T) {
	f := newFixture(t)
	f.opts.HandshakeTimeout = time.Hour
	p := f.start(t, "mute", "silent")
	waitStatus(t, p, "a started process", func(s Status) bool { return s.PID != 0 })
	pid := p.Status().PID
	p.Stop()
	if got := p.Status(); got.State != Stopped {
		t.Fatalf("state after Stop: %s", got.State)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("process %d still runs after Stop", pid)
	}
}
