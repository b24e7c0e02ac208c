package kernel

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A compiled-in plugin's Events subscription (HomeAgent's) receives the
// events of the turns it injected, as HomeAgent's types, and never those
// of another channel's turn; after stop it receives nothing more.
func TestPluginEventsOnlyOwnTurns(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{Text: "someone else's answer sk-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		llmtest.Reply{Text: "your answer"},
	)
	inputs := make(chan *sdk.Event, 8)
	outputs := make(chan *sdk.Event, 8)
	var ps *sdk.PluginSDK
	load(t, e.k, "watcher", func(s *sdk.PluginSDK) error {
		ps = s
		return nil
	})
	stopIn := ps.Events().Subscribe(sdk.EventRawInput, func(ev *sdk.Event) { inputs <- ev })
	stopOut := ps.Events().Subscribe(sdk.EventAgentOutput, func(ev *sdk.Event) { outputs <- ev })
	defer stopIn()

	if out := e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "a", Text: "not yours"}}); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := ps.InjectInputSync("watcher", "watcher", "mine"); got != "your answer" {
		t.Fatalf("InjectInputSync = %q", got)
	}
	in := <-inputs
	if in.Payload["text"] != "mine" || in.Type != sdk.EventRawInput || in.Source != PluginChannel("watcher") {
		t.Fatalf("first input event %+v: another channel's turn leaked or the event is wrong", in)
	}
	out := <-outputs
	if out.Payload["text"] != "your answer" {
		t.Fatalf("first output event %+v", out)
	}
	stopOut()
	stopOut() // idempotent
	if s, ok := out.Payload["text"].(string); !ok || strings.Contains(s, "sk-") {
		t.Fatalf("payload %+v", out.Payload)
	}
}

// Events of a plugin's turn have key-like secrets masked.
func TestPluginEventsMasked(t *testing.T) {
	key := "sk-" + strings.Repeat("b", 40)
	e := newEnv(t, Options{}, llmtest.Reply{Text: "the key is " + key})
	outputs := make(chan *sdk.Event, 8)
	var ps *sdk.PluginSDK
	load(t, e.k, "watcher", func(s *sdk.PluginSDK) error { ps = s; return nil })
	stop := ps.Events().Subscribe(sdk.EventAgentOutput, func(ev *sdk.Event) { outputs <- ev })
	defer stop()
	ps.InjectInputSync("watcher", "watcher", "tell me "+key)
	if got := (<-outputs).Payload["text"].(string); strings.Contains(got, key) {
		t.Fatalf("secret reached the plugin: %q", got)
	}
}

// Withdrawing a plugin ends its subscriptions (no goroutine is left:
// goleak checks at the end of the package).
func TestPluginEventsEndWithPlugin(t *testing.T) {
	e := newEnv(t, Options{})
	var ps *sdk.PluginSDK
	load(t, e.k, "watcher", func(s *sdk.PluginSDK) error { ps = s; return nil })
	ps.Events().Subscribe(sdk.EventSystem, func(*sdk.Event) {})
	e.k.withdraw("watcher")
}
