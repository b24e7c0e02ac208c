//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/toolcall"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// redactor is a plugin of one tool whose stage handlers depend on its
// data folder, not on its files: the file "rules" there names one
// ("guard:before_output", "plain:before_output", "guard:on_input") that
// masks SECRET, or is "crash": the plugin exits during its handshake. Its Start waits while "hold" is there (waitHold).
type redactor struct{ name string }

func newRedactor(name string, _ map[string]any) (sdk.Plugin, error) { return &redactor{name}, nil }

func (p *redactor) Name() string { return p.name }
func (p *redactor) Stop() error  { return nil }
func (p *redactor) Start(s *sdk.PluginSDK) error {
	waitHold(s)
	rules, _ := os.ReadFile(filepath.Join(s.DataDir(), "rules"))
	if string(rules) == "crash" {
		os.Exit(5)
	}
	kind, stage, _ := strings.Cut(string(rules), ":")
	mask := func(sc *sdk.StageContext) error {
		sc.RawMessage = strings.ReplaceAll(sc.RawMessage, "SECRET", "[masked]")
		sc.FinalText = strings.ReplaceAll(sc.FinalText, "SECRET", "[masked]")
		return nil
	}
	switch {
	case stage == "":
	case kind == "guard":
		s.RegisterGuardStage(sdk.Stage(stage), mask)
	default:
		s.RegisterStage(sdk.Stage(stage), mask)
	}
	return s.RegisterToolContext("echo", sdk.ToolDef{Description: "Echoes.", Effect: sdk.EffectRead},
		func(_ context.Context, _ *sdk.ToolContext, args map[string]any) (any, error) {
			return map[string]any{"echo": args["text"]}, nil
		})
}

// A plugin offered from a cache that says "tools only", which now (its
// files unchanged: the change is in its data folder, or its settings)
// registers a guard handler that masks the answer, is not skipped by the
// first turn: the turn ran before the plugin was up, so the answer is
// withheld. A plain handler missed so is logged, as for a plugin that is
// down, and the next turn has the plugin's handlers.
func TestOfferStaleCacheMissedStageGuard(t *testing.T) {
	for _, tc := range []struct {
		rules    string
		withheld bool
		next     string // the answer of the turn after the handshake
	}{
		{"guard:before_output", true, "again [masked]"},
		{"guard:on_input", true, "again SECRET"}, // it masks the input only
		{"plain:before_output", false, "again [masked]"},
	} {
		t.Run(tc.rules, func(t *testing.T) {
			f := newFixture(t, llmtest.Reply{Text: "the key is SECRET"}, llmtest.Reply{Text: "again SECRET"})
			dir := pluginDir(t, "redact", "redactor")
			p := f.startOffered(t, dir)
			ready(t, p)
			p.Stop()
			if rec := f.readOffer(t, "redact"); !rec.Plain {
				t.Fatalf("a plugin of one tool was not recorded as tools only: %+v", rec)
			}
			// The user sets up the plugin's rules: its files stay as they were.
			rules := filepath.Join(f.data, "plugin_data", "redact", "rules")
			if err := os.MkdirAll(filepath.Dir(rules), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(rules, []byte(tc.rules), 0o600); err != nil {
				t.Fatal(err)
			}
			// The plugin finishes its start only once the turn's answer
			// is there (before_output, before the offer's stand-in runs).
			hold := f.holdFile(t, "redact")
			f.onStage(t, "release", sdk.StageBeforeOutput, func(*sdk.StageContext) { os.Remove(hold) })
			p = f.startOffered(t, dir)
			if !p.offered() {
				t.Fatal("not offered from the cache")
			}
			out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "hi"}})
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			if tc.withheld {
				if strings.Contains(out.Text, "SECRET") || !strings.Contains(out.Text, "was still starting") {
					t.Fatalf("a guard handler the plugin turned out to have was skipped by the first turn: %q", out.Text)
				}
			} else {
				if out.Text != "the key is SECRET" {
					t.Fatalf("the answer of a turn that missed a plain handler: %q", out.Text)
				}
				if !strings.Contains(f.logs.String(), "its handler did not see it") {
					t.Fatal("a plain handler missed by the first turn was not logged")
				}
			}
			ready(t, p)
			out = f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "hi"}})
			if out.Err != nil || out.Text != tc.next {
				t.Fatalf("the turn after the handshake: %q %v, want %q", out.Text, out.Err, tc.next)
			}
		})
	}
}

// A call of a cached tool whose plugin then fails its handshake gets an
// error that says so (not that the plugin changed), and the cached tools
// are no longer offered.
func TestOfferCrashAtHandshake(t *testing.T) {
	f := newFixture(t)
	dir := pluginDir(t, "redact", "redactor")
	p := f.startOffered(t, dir)
	ready(t, p)
	p.Stop()
	rules := filepath.Join(f.data, "plugin_data", "redact", "rules")
	if err := os.WriteFile(rules, []byte("crash"), 0o600); err != nil {
		t.Fatal(err)
	}
	hold := f.holdFile(t, "redact")
	p = f.startOffered(t, dir)
	if !p.offered() {
		t.Fatal("not offered from the cache")
	}
	res := make(chan toolcall.Result, 1)
	go func() { res <- callTool(f.k, "redact__echo", `{"text":"hi"}`) }()
	os.Remove(hold)
	r := <-res
	if !r.IsError || !strings.Contains(r.Content, "did not start") || !strings.Contains(r.Content, "exit status 5") {
		t.Fatalf("the call of a cached tool whose plugin crashed at its handshake: %+v", r)
	}
	if testing.Verbose() {
		t.Log(r.Content)
	}
	if _, ok := f.k.Tools().Lookup("redact__echo"); ok {
		t.Fatal("the cached tool of a plugin that crashed is still offered")
	}
}

// A file of the plugin whose content changed while its size and
// modification time were set back (touch -d) changes the print: the
// plugin is waited for, not offered from the record of its old files.
func TestOfferPrintSeesContentWithSameSizeAndTime(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the print reads change times on Linux and macOS only")
	}
	f := newFixture(t)
	dir := pluginDir(t, "quick", "holdtools")
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("rules: off"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(notes)
	if err != nil {
		t.Fatal(err)
	}
	p := f.startOffered(t, dir)
	ready(t, p)
	p.Stop()
	if rec := f.readOffer(t, "quick"); !rec.Plain {
		t.Fatalf("not recorded as tools only: %+v", rec)
	}
	if err := os.WriteFile(notes, []byte("rules: on!"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(notes, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(notes); err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the test did not keep size and time: %v", err)
	}
	if p := f.startOffered(t, dir); p.offered() {
		t.Fatal("offered from the record of files whose content changed (same sizes and times)")
	}
}

// A record that is not what Hearth writes (a tool's schema that is not
// an object's, a record too big to be one) is not offered: the plugin is
// waited for, and works.
func TestOfferBadRecordIgnored(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, f *fixture, dir string)
	}{
		{"string schema", func(t *testing.T, f *fixture, dir string) {
			f.forgeOffer(t, dir, sdk.ToolDef{Name: "echo", Effect: sdk.EffectRead})
			rec := f.readOffer(t, "quick")
			rec.Tools[0].Parameters = json.RawMessage(`{"type":"string"}`)
			writeOffer(t, f, rec)
		}},
		{"no schema", func(t *testing.T, f *fixture, dir string) {
			// Offered, the tool would take any arguments until the
			// handshake ended (a nil schema compiles the definition's,
			// which the record does not fill).
			f.forgeOffer(t, dir, sdk.ToolDef{Name: "echo", Effect: sdk.EffectRead})
			b, err := json.Marshal(f.readOffer(t, "quick"))
			if err != nil {
				t.Fatal(err)
			}
			var rec map[string]any
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatal(err)
			}
			delete(rec["tools"].([]any)[0].(map[string]any), "parameters") // no member at all, not null
			if b, err = json.Marshal(rec); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(offerPath(f.data, "quick"), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"huge", func(t *testing.T, f *fixture, dir string) {
			f.forgeOffer(t, dir, sdk.ToolDef{Name: "echo", Effect: sdk.EffectRead})
			rec := f.readOffer(t, "quick")
			rec.Tools[0].Description = strings.Repeat("x", 9<<20) // past maxOfferBytes
			writeOffer(t, f, rec)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			dir := pluginDir(t, "quick", "holdtools")
			tc.write(t, f, dir)
			p := f.startOffered(t, dir)
			if p.offered() {
				t.Fatal("offered from a bad record")
			}
			ready(t, p)
			if r := callTool(f.k, "quick__echo", `{"text":"hi"}`); r.IsError || !strings.Contains(r.Content, "hi") {
				t.Fatalf("the plugin after a bad record: %+v", r)
			}
		})
	}
}

// writeOffer writes rec as the record of plugin "quick".
func writeOffer(t *testing.T, f *fixture, rec offerRecord) {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(offerPath(f.data, "quick"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The program plugin.json names outside the folder is printed by its
// change time too: rewritten with its old size and time, the plugin is
// not offered from the record of the old program.
func TestOfferPrintSeesProgramOutsideFolder(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the print reads change times on Linux and macOS only")
	}
	f := newFixture(t)
	prog := filepath.Join(t.TempDir(), "prog")
	script := func(mark string) []byte { return []byte("#!/bin/sh\n# " + mark + "\nexec " + os.Args[0] + " \"$@\"\n") }
	if err := os.WriteFile(prog, script("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(prog)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "quick")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := Manifest{ID: "quick", Command: []string{prog}, Env: map[string]string{"HEARTH_TEST_CHILD": "holdtools"}}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	p := f.startOffered(t, dir)
	ready(t, p)
	p.Stop()
	if rec := f.readOffer(t, "quick"); !rec.Plain {
		t.Fatalf("not recorded as tools only: %+v", rec)
	}
	if err := os.WriteFile(prog, script("v2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(prog, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	if p := f.startOffered(t, dir); p.offered() {
		t.Fatal("offered from the record of a program whose content changed (same size and time)")
	}
}

// serveDupeTools registers the tool "echo" twice in its handshake, as a
// plugin speaking the protocol itself may.
func serveDupeTools() {
	conn := wire.NewConn(os.Stdin, os.Stdout, slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	conn.Handle(wire.MethodInitialize, func(ctx context.Context, _ json.RawMessage) (any, error) {
		def := wire.ToolDef{ToolDef: sdk.ToolDef{Name: "echo", Description: "Echoes.", Effect: sdk.EffectRead}}
		for range 2 {
			_ = conn.Call(ctx, wire.MethodToolsRegister, def, nil) // the second may be refused
		}
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Name: "quick"}, nil
	})
	conn.Handle(wire.MethodPing, func(context.Context, json.RawMessage) (any, error) { return "pong", nil })
	conn.Run()
	os.Exit(0)
}

// A handshake that registered one name twice, as many times as the record
// has tools, is not taken for the record: the record is written again
// with what the plugin has now, and no longer offers a tool it dropped.
func TestOfferRecordRewrittenAfterNameRegisteredTwice(t *testing.T) {
	f := newFixture(t)
	dir := pluginDir(t, "quick", "dupetools")
	f.forgeOffer(t, dir, sdk.ToolDef{Name: "echo", Description: "Echoes.", Effect: sdk.EffectRead},
		sdk.ToolDef{Name: "gone", Description: "Dropped since.", Effect: sdk.EffectRead})
	p := f.startOffered(t, dir)
	if !p.offered() {
		t.Fatal("not offered from the forged record")
	}
	ready(t, p)
	p.Stop()
	for _, c := range f.readOffer(t, "quick").Tools {
		if c.Name == "gone" {
			t.Fatal("the record still offers a tool the plugin no longer registers")
		}
	}
}
