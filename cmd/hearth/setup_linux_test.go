package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// closedAddress is a loopback address nothing listens on.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

// readConfig reads the config.json the setup wrote, checking its mode.
func readConfig(t *testing.T, home string) map[string]any {
	t.Helper()
	path := filepath.Join(home, config.FileName)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("config.json has mode %v", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// `hearth` on a terminal with no provider sets one up: an address typed
// in that cannot be reached, a key the provider rejects and a model it
// does not have are each explained and asked again; the key is never
// shown, not even when typed ahead while a test request runs; what works is saved to config.json and the chat starts on it,
// and a later run uses it without the setup.
func TestFirstRunSetsUpAProvider(t *testing.T) {
	called, release := make(chan struct{}), make(chan struct{})
	srv := llmtest.NewServer(t,
		llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply {
			close(called)
			<-release
			return llmtest.Reply{Status: 401, ErrorMessage: "invalid api key"}
		}},
		llmtest.Reply{Status: 404, ErrorMessage: "The model `nope` does not exist"},
		llmtest.Reply{Text: "OK"},
		llmtest.Reply{Text: "你好！"},
		llmtest.Reply{Text: "again"},
	)
	home := t.TempDir()
	env := []string{"HOME=" + home, "HEARTH_HOME=" + home}
	cmd, ptmx, scr, copied := startPTY(t, env, "chat")
	send := typer(t, ptmx)
	scr.waitFor(t, "Provider, 1-10")
	for _, want := range []string{"DeepSeek", "Ollama (local)", "Another OpenAI-compatible address"} {
		if !strings.Contains(scr.String(), want) {
			t.Fatalf("%q not offered:\n%s", want, scr.String())
		}
	}
	send("12\r")
	scr.waitFor(t, "Type a number from 1 to 10")
	send("10\r")
	scr.waitFor(t, "Address, usually ending in /v1")
	send("ftp://x\r")
	scr.waitFor(t, "an http:// or https:// address")
	send(closedAddress(t) + "\r")
	scr.waitFor(t, "Model, such as")
	send("m1\r")
	scr.waitFor(t, "Enter for none")
	send("\r")
	scr.waitFor(t, "Check the address")
	scr.waitCount(t, "Address, usually ending in /v1", 3)
	send(srv.URL + "\r")
	scr.waitCount(t, "Model, such as", 2)
	send("nope\r")
	scr.waitCount(t, "Enter for none", 2)
	send("sk-wrong-1111\r")
	<-called
	send("sk-right-2222\r") // typed ahead while the test request runs
	close(release)
	scr.waitFor(t, "paste it again")
	scr.waitFor(t, "may not exist there")
	send("m\x7f\x7fgood-model\r") // backspace edits
	scr.waitFor(t, "It works")
	scr.waitFor(t, "› ")
	send("hi\r")
	scr.waitFor(t, "你好！")
	send("\x04")
	waitExit(t, cmd, scr, copied)

	if shown := scr.String(); strings.Contains(shown, "sk-wrong-1111") || strings.Contains(shown, "sk-right-2222") {
		t.Fatalf("a key was shown:\n%s", shown)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range []struct{ auth, model string }{
		{"Bearer sk-wrong-1111", "nope"}, {"Bearer sk-right-2222", "nope"}, {"Bearer sk-right-2222", "good-model"}, {"Bearer sk-right-2222", "good-model"},
	} {
		if reqs[i].Authorization != want.auth || reqs[i].Model != want.model {
			t.Fatalf("request %d: %q %q", i, reqs[i].Authorization, reqs[i].Model)
		}
	}
	f := readConfig(t, home)
	src, _ := f["sources"].(map[string]any)["custom"].(map[string]any)
	if f["source"] != "custom" || src["base_url"] != srv.URL || src["model"] != "good-model" || src["api_key"] != "sk-right-2222" {
		t.Fatalf("config.json: %v", f)
	}

	// The next run uses it, on a terminal or not.
	out, errOut, code := hearth(t, env, "", "ask", "hi")
	if code != 0 || out != "again\n" {
		t.Fatalf("ask after setup: %d %q %q", code, out, errOut)
	}
}

// Leaving the setup says how else to configure a provider, exits 2 as
// off a terminal, and writes nothing.
func TestFirstRunLeft(t *testing.T) {
	called, release := make(chan struct{}), make(chan struct{})
	srv := llmtest.NewServer(t, llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply {
		close(called)
		<-release
		return llmtest.Reply{Text: "OK"}
	}})
	t.Cleanup(func() { close(release) }) // before the server closes
	for name, keys := range map[string][]string{
		"q": {"q\r"}, "Ctrl-C": {"10\r\x03"}, "Ctrl-D": {"\x04"},
		"q at the key":         {"1\r\r", "q\r"}, // the key's prompt: q is no key
		"Ctrl-C while testing": {"10\r" + srv.URL + "\rm\r\r", "\x03"},
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			cmd, ptmx, scr, copied := startPTY(t, []string{"HOME=" + home, "HEARTH_HOME=" + home}, "chat")
			scr.waitFor(t, "Provider, 1-10")
			typer(t, ptmx)(keys[0])
			switch {
			case name == "q at the key":
				scr.waitFor(t, "API key, not shown")
				typer(t, ptmx)(keys[1])
			case len(keys) > 1:
				<-called
				typer(t, ptmx)(keys[1])
			}
			err := cmd.Wait()
			<-copied
			var ee interface{ ExitCode() int }
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("exit %v:\n%s", err, scr.String())
			}
			if !strings.Contains(scr.String(), "OPENAI_BASE_URL") {
				t.Fatalf("no explanation:\n%s", scr.String())
			}
			if _, err := os.Stat(filepath.Join(home, config.FileName)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("config.json written: %v", err)
			}
		})
	}
}

// A preset fills in the address and the model (Enter keeps it), shows
// where keys are made, and needs a key; a local preset asks none.
func TestFirstRunPresets(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "OK"}, llmtest.Reply{Text: "OK"})
	presets := []config.Preset{
		{Name: "hosted", Label: "Hosted", BaseURL: srv.URL, Model: "hosted-model", NeedsKey: true, KeyURL: "https://keys.example/new"},
		{Name: "local", Label: "Local", BaseURL: srv.URL, ModelHint: "llama3"},
	}
	for _, tc := range []struct {
		choice, model, keys string
		want                config.SourceConfig
	}{
		{"1", "", "\r\rsk-hosted-1\r", config.SourceConfig{BaseURL: srv.URL, Model: "hosted-model", APIKey: "sk-hosted-1"}},
		{"2", "llama3", "", config.SourceConfig{BaseURL: srv.URL, Model: "llama3"}},
	} {
		t.Run(tc.choice, func(t *testing.T) {
			ptmx, pts := openPTY(t)
			defer ptmx.Close()
			defer pts.Close()
			home := t.TempDir()
			r := &firstRun{in: pts, out: pts, dataDir: home, presets: presets, secrets: &redact.Secrets{}}
			scr := &screen{}
			go ioCopy(scr, ptmx)
			type result struct {
				src llm.Source
				err error
			}
			done := make(chan result, 1)
			go func() { src, err := r.run(context.Background()); done <- result{src, err} }()
			send := typer(t, ptmx)
			scr.waitFor(t, "Provider, 1-3")
			send(tc.choice + "\r")
			if tc.model != "" {
				scr.waitFor(t, "Model, such as llama3")
				send(tc.model + "\r")
			} else {
				scr.waitFor(t, "Model / 模型 [hosted-model]")
				send("\r")
				scr.waitFor(t, "https://keys.example/new")
				send(tc.keys)
			}
			res := <-done
			if res.err != nil {
				t.Fatal(res.err)
			}
			scr.waitFor(t, "Saved as source")
			if res.src.Name != presets[tc.choice[0]-'1'].Name {
				t.Fatalf("source %+v", res.src)
			}
			f, err := config.Load(home)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Sources[res.src.Name]; got.BaseURL != tc.want.BaseURL || got.Model != tc.want.Model || got.APIKey != tc.want.APIKey || f.Source != res.src.Name {
				t.Fatalf("config: %+v", f)
			}
		})
	}
}
