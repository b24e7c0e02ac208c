//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// inputFilter is a child whose on_input handler exits the process on the
// message "crash": registered with RegisterGuardStage (mode "inputguard")
// or RegisterStage (mode "inputplain").
type inputFilter struct{ name, mode string }

func newInputFilter(mode string) func(string, map[string]any) (sdk.Plugin, error) {
	return func(name string, _ map[string]any) (sdk.Plugin, error) { return &inputFilter{name, mode}, nil }
}

func (p *inputFilter) Name() string { return p.name }
func (p *inputFilter) Stop() error  { return nil }

func (p *inputFilter) Start(s *sdk.PluginSDK) error {
	h := func(sc *sdk.StageContext) error {
		if sc.RawMessage == "crash" {
			os.Exit(3)
		}
		return nil
	}
	if os.Getenv("HEARTH_TEST_NO_RESTART") == "1" {
		s.SetAutoRestart(false)
	}
	if p.mode == "inputguard" {
		s.RegisterGuardStage(sdk.StageOnInput, h)
	} else {
		s.RegisterStage(sdk.StageOnInput, h)
	}
	return nil
}

// A guard's on_input handler that cannot run (its process died) refuses
// the message with a text naming the plugin; a plain handler that cannot
// run is logged and the message goes on to the model.
func TestInputGuardFailsClosed(t *testing.T) {
	for _, mode := range []string{"inputguard", "inputplain"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t, llmtest.Reply{Text: "answered"})
			ready(t, f.start(t, "filter", mode))
			out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "crash"}})
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			sent := len(f.srv.Requests())
			if mode == "inputplain" {
				if out.Text != "answered" || sent != 1 {
					t.Fatalf("a plain handler's failure should let the message through: %q, %d request(s)", out.Text, sent)
				}
				return
			}
			if sent != 0 {
				t.Fatalf("the model was asked %d time(s) although the guard could not check the message\n%s", sent, f.logs.String())
			}
			if !strings.Contains(out.Text, "The plugin filter could not check this message") || !strings.Contains(out.Text, "插件 filter") {
				t.Fatalf("refusal %q", out.Text)
			}
			if !strings.Contains(f.logs.String(), "stage handler failed") {
				t.Errorf("the failure is not logged:\n%s", f.logs.String())
			}
		})
	}
}

// The Python and TypeScript SDKs declare guards too (define_stage(...,
// guard=True), guardStages): a guard whose process died refuses.
func TestInputGuardFailsClosedSDKs(t *testing.T) {
	for _, tc := range []struct{ dir, program string }{{"pyinputguard", "python3"}, {"tsinputguard", "node"}} {
		t.Run(tc.dir, func(t *testing.T) {
			needProgram(t, tc.program)
			f := newFixture(t, llmtest.Reply{Text: "answered"})
			dir, _ := filepath.Abs(filepath.Join("testdata", tc.dir))
			p, err := Start(dir, &f.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Stop()
			ready(t, p)
			out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "crash"}})
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			if n := len(f.srv.Requests()); n != 0 || !strings.Contains(out.Text, "The plugin "+tc.dir+" could not check this message") {
				t.Fatalf("%d request(s), answer %q", n, out.Text)
			}
		})
	}
}

// A guard that went down stays a guard: until it is back (here never:
// it does not restart), every message is refused by a stand-in.
func TestInputGuardDownRefuses(t *testing.T) {
	f := newFixture(t, llmtest.Reply{Text: "answered"})
	dir := pluginDir(t, "filter", "inputguard")
	b, _ := json.Marshal(Manifest{ID: "filter", Command: []string{os.Args[0]},
		Env: map[string]string{"HEARTH_TEST_CHILD": "inputguard", "HEARTH_TEST_NO_RESTART": "1"}})
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	ask := func(text string) string {
		out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: text}})
		if out.Err != nil {
			t.Fatal(out.Err)
		}
		return out.Text
	}
	if got := ask("crash"); !strings.Contains(got, "could not check this message") {
		t.Fatalf("crash: %q", got)
	}
	waitStatus(t, p, "failed", func(s Status) bool { return s.State == Failed })
	if got := ask("hello"); !strings.Contains(got, "The plugin filter, which checks messages, is not running") {
		t.Fatalf("a message while the guard is down: %q", got)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Fatalf("the model was asked %d time(s)", n)
	}
}

// Once the guard is back, its stand-in steps aside: its own handler
// decides again.
func TestInputGuardBackRetiresStandIn(t *testing.T) {
	f := newFixture(t, llmtest.Reply{Text: "answered"})
	p := f.start(t, "filter", "inputguard")
	ready(t, p)
	out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "crash"}})
	if out.Err != nil || !strings.Contains(out.Text, "could not check this message") {
		t.Fatalf("crash: %+v", out)
	}
	waitStatus(t, p, "restarted", func(s Status) bool { return s.State == Running && s.Restarts > 0 })
	out = f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "hello"}})
	if out.Err != nil || out.Text != "answered" {
		t.Fatalf("a message once the guard is back: %+v", out)
	}
}
