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
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/compat/testdata/ha-media/mediabot"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// mediaHost is Hearth running mediabot compiled in or as a child process,
// with a scripted model that accepts images or not.
type mediaHost struct {
	k   *kernel.Kernel
	srv *llmtest.Server
	eng *policy.Engine
}

// mediaBin builds testdata/ha-media once per test.
func mediaBin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ha-media")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/ha-media").CombinedOutput(); err != nil {
		t.Fatalf("building the test plugin: %v\n%s", err, out)
	}
	return bin
}

// newMediaHost starts mediabot compiled in (bin empty) or as a child.
func newMediaHost(t *testing.T, vision bool, bin string) *mediaHost {
	t.Helper()
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
	eng.LocalChannels = append(eng.LocalChannels, "test")
	srv := llmtest.NewServer(t)
	src, _ := llm.NewSources([]llm.Source{{Name: "main", BaseURL: srv.URL, Model: "m", Images: &vision}}, "main")
	k := kernel.New(src, st, &kernel.Options{Policy: eng, Logger: log})
	t.Cleanup(func() { k.Close(); st.Close() })
	h := &mediaHost{k: k, srv: srv, eng: eng}
	if bin == "" {
		if err := k.LoadPlugin("mediabot", mediabot.New, nil); err != nil {
			t.Fatal(err)
		}
	} else {
		dir := filepath.Join(t.TempDir(), "mediabot")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(pluginhost.Manifest{ID: "mediabot", Command: []string{bin}})
		if err := os.WriteFile(filepath.Join(dir, pluginhost.ManifestFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := pluginhost.Start(dir, &pluginhost.Options{Host: k, LLM: src, Log: log, DataDir: t.TempDir(), HandshakeTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Stop)
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := p.WaitReady(wctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, local := range []string{"snap", "plain"} {
		if err := eng.SetOverride(ctx, h.tool(t, local), sdk.ModeAuto); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func (h *mediaHost) tool(t *testing.T, local string) string {
	t.Helper()
	for _, tl := range h.k.Tools().List() {
		if tl.Plugin == "mediabot" && tl.Local == local {
			return tl.Name
		}
	}
	t.Fatalf("mediabot has no tool %s", local)
	return ""
}

// parts returns a message's content as text and image URLs (content
// parts, or a plain string).
func parts(m map[string]any) (text string, images []string) {
	switch c := m["content"].(type) {
	case string:
		return c, nil
	case []any:
		for _, p := range c {
			part, _ := p.(map[string]any)
			switch part["type"] {
			case "text":
				s, _ := part["text"].(string)
				text += s
			case "image_url":
				u, _ := part["image_url"].(map[string]any)
				s, _ := u["url"].(string)
				images = append(images, s)
			}
		}
	}
	return text, images
}

// userParts answers with the last user message's text and image URLs.
func userParts(req llmtest.Request) llmtest.Reply {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m["role"] == "user" {
			text, images := parts(m)
			b, _ := json.Marshal(map[string]any{"text": text, "images": images})
			return llmtest.Reply{Text: string(b)}
		}
	}
	return llmtest.Reply{Text: "{}"}
}

// TestHomeAgentMedia is the compile-and-run table of HomeAgent's media
// API: each row runs mediabot compiled in and as a Go child process, and
// checks the content parts of the requests the scripted model received.
func TestHomeAgentMedia(t *testing.T) {
	bin := mediaBin(t)
	rows := []struct {
		symbols, checks string
		vision          bool
		run             func(t *testing.T, h *mediaHost)
	}{
		{"InjectInputMediaSync, ContentBlock{ImageURL, AudioURL}", "image blocks are image parts of the user message, as given and bounded; audio is named", true,
			func(t *testing.T, h *mediaHost) {
				h.srv.Push(llmtest.Reply{Func: userParts})
				got := h.call(t, "relay", `{}`)
				var m struct {
					Text   string
					Images []string
				}
				if err := json.Unmarshal([]byte(got), &m); err != nil {
					t.Fatalf("%v: %s", err, got)
				}
				want := []string{"https://example.invalid/a.png", mediabot.Pixel, "https://example.invalid/b.png", "https://example.invalid/c.png"}
				if strings.Join(m.Images, " ") != strings.Join(want, " ") {
					t.Fatalf("images %q", m.Images)
				}
				for _, s := range []string{"from alice", "what is in these?", "[image: https://example.invalid/a.png]",
					"image 3 has a URL that is neither http(s) nor data:", "image 6 is over the limit of 4 images",
					"the model did not hear the audio"} {
					if !strings.Contains(m.Text, s) {
						t.Fatalf("text lacks %q: %s", s, m.Text)
					}
				}
				if strings.Contains(m.Text, "base64") {
					t.Fatalf("the data URL is in the text: %s", m.Text)
				}
			}},
		{"InjectInputMediaSync to a model without images", "the text names the images and says the model cannot see them", false,
			func(t *testing.T, h *mediaHost) {
				h.srv.Push(llmtest.Reply{Func: userParts})
				got := h.call(t, "relay", `{}`)
				if !strings.Contains(got, "this model cannot see images") || !strings.Contains(got, `"images":null`) {
					t.Fatalf("%s", got)
				}
			}},
		{"InjectInterruptMediaOpts, InjectInputMedia", "queued inputs carry their images too", true,
			func(t *testing.T, h *mediaHost) {
				seen := make(chan string, 2)
				h.srv.Push(llmtest.Reply{Func: func(req llmtest.Request) llmtest.Reply {
					r := userParts(req)
					seen <- r.Text
					return r
				}}, llmtest.Reply{Func: func(req llmtest.Request) llmtest.Reply {
					r := userParts(req)
					seen <- r.Text
					return r
				}})
				h.call(t, "doorbell", `{}`)
				for range 2 {
					got := <-seen
					if !strings.Contains(got, `"images":["https://example.invalid/door.jpg"]`) {
						t.Fatalf("%s", got)
					}
				}
			}},
		{"SetToolBlocks", "the call's data: and http(s) images reach the model after the tool messages, as given; a file: one is named; another call gets none", true,
			func(t *testing.T, h *mediaHost) {
				h.srv.Push(llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "s", Name: h.tool(t, "snap"), Arguments: `{}`},
					{ID: "p", Name: h.tool(t, "plain"), Arguments: `{"n":1}`}}}, llmtest.Reply{Text: "a dot"})
				if o := h.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "look"}}); o.Err != nil || o.Text != "a dot" {
					t.Fatalf("%+v", o)
				}
				reqs := h.srv.Requests()
				last := reqs[len(reqs)-1].Messages
				var snap, plain string
				var images []string
				for _, m := range last {
					switch {
					case m["role"] == "tool" && m["tool_call_id"] == "s":
						snap, _ = parts(m)
					case m["role"] == "tool" && m["tool_call_id"] == "p":
						plain, _ = parts(m)
					case m["role"] == "user":
						_, images = parts(m)
					}
				}
				if !strings.Contains(snap, `"snapped":true`) || !strings.Contains(snap, "[image: file:///etc/passwd] (not shown") {
					t.Fatalf("snap %q", snap)
				}
				if plain != "plain 1" {
					t.Fatalf("plain %q", plain)
				}
				if strings.Join(images, " ") != mediabot.Pixel+" https://example.invalid/far.png" {
					t.Fatalf("images %q", images)
				}
			}},
	}
	for _, r := range rows {
		for _, mode := range []string{"compiled in", "Go child"} {
			t.Run(r.symbols+"/"+mode, func(t *testing.T) {
				t.Logf("%s | mediabot (%s) | %s", r.symbols, mode, r.checks)
				b := ""
				if mode == "Go child" {
					b = bin
				}
				r.run(t, newMediaHost(t, r.vision, b))
			})
		}
	}
}

// call runs a mediabot tool outside any turn.
func (h *mediaHost) call(t *testing.T, local, args string) string {
	t.Helper()
	tl, ok := h.k.Tools().Lookup(h.tool(t, local))
	if !ok {
		t.Fatalf("no tool %s", local)
	}
	r := tl.Call(context.Background(), &sdk.ToolContext{Actor: sdk.ActorAgent}, json.RawMessage(args))
	if r.IsError {
		t.Fatalf("%s: %s", local, r.Content)
	}
	return r.Content
}
