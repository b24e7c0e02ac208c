//go:build unix

package compat

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// hacHost is Hearth as the HomeAgent channel rows run it: the kernel with
// a store and a policy engine, a scripted model, and the plugin host
// running testdata/ha-channels as child processes.
type hacHost struct {
	k    *kernel.Kernel
	srv  *llmtest.Server
	st   *store.Store
	eng  *policy.Engine
	opts pluginhost.Options
	bin  string

	mu    sync.Mutex
	ended map[string]int // channel -> turns ended
	turn  chan struct{}  // signalled at every turn's end
}

func newHACHost(t *testing.T) *hacHost {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ha-channels")
	build := exec.Command("go", "build", "-o", bin, "./testdata/ha-channels")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the test plugins: %v\n%s", err, out)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	eng, err := policy.NewEngine(ctx, st, log)
	if err != nil {
		t.Fatal(err)
	}
	eng.LocalChannels = append(eng.LocalChannels, "test") // the owner speaks on "test"
	srv := llmtest.NewServer(t)
	src, _ := llm.NewSources([]llm.Source{{Name: "main", BaseURL: srv.URL}}, "main")
	k := kernel.New(src, st, &kernel.Options{Policy: eng, Logger: log})
	h := &hacHost{k: k, srv: srv, st: st, eng: eng, bin: bin, ended: map[string]int{}, turn: make(chan struct{}, 64)}
	stop := k.Observe(func(in sdk.Injection, ev kernel.Event) {
		if ev.Kind == kernel.EventTurnEnded {
			h.mu.Lock()
			h.ended[in.Channel]++
			h.mu.Unlock()
			h.turn <- struct{}{}
		}
	})
	t.Cleanup(func() { stop(); k.Close(); st.Close() })
	h.opts = pluginhost.Options{Host: k, LLM: src, Log: log, DataDir: t.TempDir(), HandshakeTimeout: time.Minute}
	return h
}

// start runs the test plugin id as a child process.
func (h *hacHost) start(t *testing.T, id string, capabilities ...string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(pluginhost.Manifest{ID: id, Command: []string{h.bin}, Capabilities: capabilities})
	if err := os.WriteFile(filepath.Join(dir, pluginhost.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := pluginhost.Start(dir, &h.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
}

// tool returns the model-visible name of plugin's tool local.
func (h *hacHost) tool(t *testing.T, plugin, local string) string {
	t.Helper()
	for _, tl := range h.k.Tools().List() {
		if tl.Plugin == plugin && tl.Local == local {
			return tl.Name
		}
	}
	t.Fatalf("plugin %s has no tool %s", plugin, local)
	return ""
}

// call runs a tool as the agent would, outside any turn.
func (h *hacHost) call(t *testing.T, name, args string) (string, bool) {
	t.Helper()
	tl, ok := h.k.Tools().Lookup(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	r := tl.Call(context.Background(), &sdk.ToolContext{Actor: sdk.ActorAgent}, json.RawMessage(args))
	return r.Content, r.IsError
}

// ask runs one owner's turn on "test".
func (h *hacHost) ask(t *testing.T, text string) kernel.Outcome {
	t.Helper()
	return h.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: text}})
}

// waitTurns waits until n turns on channel have ended.
func (h *hacHost) waitTurns(channel string, n int) {
	for {
		h.mu.Lock()
		done := h.ended[channel] >= n
		h.mu.Unlock()
		if done {
			return
		}
		<-h.turn
	}
}

// lastUser answers with the text of the request's last user message.
func lastUser(req llmtest.Request) llmtest.Reply {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m["role"] == "user" {
			s, _ := m["content"].(string)
			return llmtest.Reply{Text: "echo: " + s}
		}
	}
	return llmtest.Reply{Text: "echo: nothing"}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return m
}

// TestHomeAgentChannels is the compile-and-run table of HomeAgent's
// channel API: each row names the symbols or pattern, the test plugin
// that uses them (testdata/ha-channels, built with the local toolchain
// and run as a child process), and checks what Hearth did. The rows run
// in order on one host.
func TestHomeAgentChannels(t *testing.T) {
	h := newHACHost(t)
	for _, id := range []string{"qqlike", "calendarlike", "acplike"} {
		h.start(t, id)
	}
	ctx := context.Background()
	rows := []struct {
		symbols, plugin, checks string
		run                     func(t *testing.T)
	}{
		{"RegisterInputChannel, ChannelDef{}", "acplike", "the channel is the plugin's, an input channel", func(t *testing.T) {
			if owner, ok := h.k.ChannelOwner("acplike"); !ok || owner != "acplike" {
				t.Fatalf("owner %q %v", owner, ok)
			}
		}},
		{"RegisterOutputChannel, InjectInterruptTextOpts, InjectOptions{ContextPolicy, RecallPolicy, CleanerName, Priority}, PriorityL3",
			"qqlike", "a relayed message is answered on (qqlike, \"\") and the answer reaches the output handler", func(t *testing.T) {
				h.srv.Push(llmtest.Reply{Text: "hi back"})
				got, isErr := h.call(t, h.tool(t, "qqlike", "qqlike_webhook"), `{"text":"hi"}`)
				m := decode(t, got)
				if isErr || m["payload"] != "hi back" || m["type"] != "text" || m["final"] != true {
					t.Fatalf("delivered %s", got)
				}
				if sess, err := h.st.Session(ctx, "qqlike", ""); err != nil || sess.ID == 0 {
					t.Fatalf("session: %+v %v", sess, err)
				}
			}},
		{"ChannelDef{ContextPolicy, RecallPolicy, Cleaner}, ContextPolicyPrune, RecallPolicyAuto, ValidContextPolicy, ValidRecallPolicy",
			"qqlike", "the policies reach the host; the Cleaner stays in the plugin", func(t *testing.T) {
				for _, c := range h.k.Channels() {
					if c.Name == "qqlike" && c.Def.ContextPolicy == sdk.ContextPolicyPrune && c.Def.RecallPolicy == sdk.RecallPolicyAuto &&
						c.Output && c.Input {
						return
					}
				}
				t.Fatalf("channels %+v", h.k.Channels())
			}},
		{"CapText|CapFile|CapImage|CapAudio, output_send__<name>", "qqlike", "the model sends an image through output_send__qqlike", func(t *testing.T) {
			if err := h.eng.SetOverride(ctx, "output_send__qqlike", sdk.ModeAuto); err != nil {
				t.Fatal(err)
			}
			h.srv.Push(llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "s", Name: "output_send__qqlike",
				Arguments: `{"payload":"/tmp/cat.png","type":"image","meta":"{\"user_id\":1}"}`}}}, llmtest.Reply{Text: "sent"})
			if o := h.ask(t, "send the cat"); o.Err != nil || o.Text != "sent" {
				t.Fatalf("%+v", o)
			}
			got, _ := h.call(t, h.tool(t, "qqlike", "qqlike_wait_delivery"), `{}`)
			if m := decode(t, got); m["type"] != "image" || m["payload"] != "/tmp/cat.png" || m["meta"] != `{"user_id":1}` || m["final"] != nil {
				t.Fatalf("delivered %s", got)
			}
		}},
		{"CapStructured (not declared)", "qqlike", "output_send__qqlike refuses structured data with a clear error", func(t *testing.T) {
			got, isErr := h.call(t, "output_send__qqlike", `{"payload":"{}","type":"structured"}`)
			if !isErr || !strings.Contains(got, "cannot send") || !strings.Contains(got, "it declared text, file, image, audio") {
				t.Fatalf("%v %s", isErr, got)
			}
		}},
		{"RegisterStage(stage, h, StageScopeOwnTools), StageScopeGlobal", "qqlike", "the own-tools handler sees only qqlike's calls", func(t *testing.T) {
			stages := h.tool(t, "qqlike", "qqlike_stages")
			h.srv.Push(llmtest.Reply{ToolCalls: []llmtest.Call{
				{ID: "o", Name: h.tool(t, "calendarlike", "seen"), Arguments: `{}`},
				{ID: "q", Name: stages, Arguments: `{}`}}}, llmtest.Reply{Text: "ok"})
			if o := h.ask(t, "count"); o.Err != nil {
				t.Fatal(o.Err)
			}
			got, _ := h.call(t, stages, `{}`)
			m := decode(t, got)
			if m["own"] != float64(1) || m["all"].(float64) < 3 {
				t.Fatalf("stages saw %s", got)
			}
		}},
		{"ChannelDef{NoMemory}, InjectInterruptTextOpts(InjectOptions{NoMemory}), InjectTextNoMemory", "calendarlike",
			"both reminders are answered on calendarlike without memory", func(t *testing.T) {
				h.srv.Push(llmtest.Reply{Func: lastUser}, llmtest.Reply{Func: lastUser})
				if got, isErr := h.call(t, h.tool(t, "calendarlike", "remind"), `{"text":"meeting at 3"}`); isErr {
					t.Fatal(got)
				}
				h.waitTurns("calendarlike", 2)
				got, _ := h.call(t, h.tool(t, "calendarlike", "seen"), `{}`)
				var seen []map[string]any
				if err := json.Unmarshal([]byte(got), &seen); err != nil {
					t.Fatalf("seen %s", got)
				}
				reminders := 0
				for _, e := range seen {
					if e["channel"] == "calendarlike" {
						reminders++
						if e["no_memory"] != true {
							t.Fatalf("seen %v", seen)
						}
					}
				}
				if reminders != 2 {
					t.Fatalf("seen %v", seen)
				}
			}},
		{"InjectInputSync, InjectInputSyncOpts, InjectInputMediaSync, ContentBlock, ImageURL, AudioURL, SetToolBlocks", "acplike",
			"the waited-for answers come back to the caller, never through the output handler; media are named in the text for a model without images", func(t *testing.T) {
				h.srv.Push(llmtest.Reply{Func: lastUser}, llmtest.Reply{Func: lastUser}, llmtest.Reply{Func: lastUser})
				got, isErr := h.call(t, h.tool(t, "acplike", "prompt"), `{"text":"status?"}`)
				got, note, _ := strings.Cut(got, "\n") // SetToolBlocks's audio block is named after the JSON
				if note != "[audio] (not passed: Hearth sends models no audio)" {
					t.Fatalf("note %q", note)
				}
				m := decode(t, got)
				if isErr || !strings.Contains(m["reply"].(string), "status?") || !strings.Contains(m["opts"].(string), "status? (opts)") ||
					!strings.Contains(m["media"].(string), "[image: https://example.invalid/cat.png]") || !strings.Contains(m["media"].(string), "and this") {
					t.Fatalf("%v %s", isErr, got)
				}
			}},
		{"UnregisterOutputChannel", "qqlike", "output_send__qqlike goes; the input half stays", func(t *testing.T) {
			if got, isErr := h.call(t, h.tool(t, "qqlike", "qqlike_drop"), `{}`); isErr {
				t.Fatal(got)
			}
			if _, ok := h.k.Tools().Lookup("output_send__qqlike"); ok {
				t.Fatal("output_send__qqlike is still there")
			}
			if owner, ok := h.k.ChannelOwner("qqlike"); !ok || owner != "qqlike" {
				t.Fatalf("input half: %q %v", owner, ok)
			}
		}},
	}
	for _, r := range rows {
		t.Run(r.symbols, func(t *testing.T) {
			t.Logf("%s | %s | %s", r.symbols, r.plugin, r.checks)
			r.run(t)
		})
	}
}
