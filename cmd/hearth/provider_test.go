package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

func content(s string) string { return fmt.Sprintf(`{"choices":[{"delta":{"content":%q}}]}`, s) }

const finished = `{"choices":[{"delta":{},"finish_reason":"stop"}]}`

func TestAskFailsOnHTMLPage(t *testing.T) {
	p := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><head><title>My Router</title></head><body>Welcome</body></html>")
	})
	env := []string{"OPENAI_BASE_URL=" + p.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, code := hearth(t, env, "", "ask", "hi")
	if code == 0 || stdout != "" || !strings.Contains(stderr, "HTML page") || !strings.Contains(stderr, "OPENAI_BASE_URL") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestAskFailsOnEmptyAnswer(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, code := hearth(t, env, "", "ask", "hi")
	if code == 0 || stdout != "" || !strings.Contains(stderr, "empty answer") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func cutStream(w http.ResponseWriter, _ *http.Request) {
	llmtest.SSE(w, content("The capital of France "), content("is")) // and the connection closes
}

func TestAskFailsOnCutAnswer(t *testing.T) {
	p := llmtest.NewRawServer(t, cutStream)
	env := []string{"OPENAI_BASE_URL=" + p.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, code := hearth(t, env, "", "ask", "capital of France?")
	if code == 0 || stdout != "The capital of France is\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains("\n"+stderr, "\n"+terminal.CutMarker) || !strings.Contains(stderr, "cut off") {
		t.Fatalf("stderr %q", stderr)
	}
	if p.Requests() != 1 {
		t.Fatalf("retried after the answer began: %d requests", p.Requests())
	}
}

func TestChatMarksCutAnswer(t *testing.T) {
	p := llmtest.NewRawServer(t, cutStream)
	env := []string{"OPENAI_BASE_URL=" + p.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, _ := hearth(t, env, "capital of France?\n", "chat")
	if !strings.Contains(stdout, "The capital of France is "+terminal.CutMarker+"\n") || !strings.Contains(stderr, "cut off") {
		t.Fatalf("stdout %q, stderr %q", stdout, stderr)
	}
}

// writeConfig writes config.json with one source "main" at url and the
// given extra fields.
func writeConfig(t *testing.T, home, url, extra string) {
	t.Helper()
	cfg := fmt.Sprintf(`{"sources": {"main": {"base_url": %q, "model": "m"%s}}}`, url, extra)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestAskStalledMidAnswerTimesOut(t *testing.T) {
	p := llmtest.NewRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		llmtest.SSE(w, content("Thinking about"))
		<-r.Context().Done() // and nothing more, ever
	})
	home := t.TempDir()
	writeConfig(t, home, p.URL, `, "idle_timeout": "100ms"`)
	stdout, stderr, code := hearth(t, []string{"HEARTH_HOME=" + home}, "", "ask", "hi")
	if code == 0 || stdout != "Thinking about\n" || !strings.Contains(stderr, "idle_timeout") || !strings.Contains("\n"+stderr, "\n"+terminal.CutMarker) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestAskStalledBeforeAnswerIsRetried(t *testing.T) {
	p := llmtest.NewRawServer(t,
		func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, // never sends headers
		func(w http.ResponseWriter, _ *http.Request) { llmtest.SSE(w, content("Here."), finished, "[DONE]") })
	home := t.TempDir()
	writeConfig(t, home, p.URL, `, "first_byte_timeout": "100ms"`)
	stdout, stderr, code := hearth(t, []string{"HEARTH_HOME=" + home}, "", "ask", "hi")
	if code != 0 || stdout != "Here.\n" || p.Requests() != 2 {
		t.Fatalf("exit %d, stdout %q, stderr %q after %d requests", code, stdout, stderr, p.Requests())
	}
}

// readLogs returns hearth.log and its rotated files, concatenated.
func readLogs(t *testing.T, home string) string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(home, "hearth.log*"))
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

func TestKeysMaskedInEveryMessage(t *testing.T) {
	const (
		key      = "sk-main+5f4e/3d2c1b0a=99887766"
		otherKey = "other-key-aabbccddeeff00112233"
		stranger = "sk-proj-StrangerKey0123456789"
	)
	leaks := []string{"aabbccddeeff0011", "StrangerKey01234"}
	for i := 0; i+12 <= len(key); i++ {
		leaks = append(leaks, key[i:i+12]) // any 12 characters of the key
	}
	// The key comes back as sent, JSON-escaped as some servers do, in a
	// URL, in base64 and cut short.
	p := llmtest.NewRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s (you sent %q; did you mean %s or %s?)",`+
			`"detail":"invalid key %s","url":"/v1/check?key=%s","b64":"%s","prefix":"%s"}}`,
			key, r.Header.Get("Authorization"), otherKey, stranger, strings.ReplaceAll(key, "/", `\/`),
			url.QueryEscape(key), base64.StdEncoding.EncodeToString([]byte(key)), key[:len(key)-5])
	})
	home := t.TempDir()
	cfg := fmt.Sprintf(`{"source": "main", "sources": {
		"main": {"base_url": %q, "api_key": %q, "model": "m"},
		"other": {"base_url": "http://127.0.0.1:1/v1", "api_key_env": "OTHER_KEY", "model": "m"}}}`, p.URL, key)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HEARTH_HOME=" + home, "OTHER_KEY=" + otherKey}
	check := func(what, text string) {
		t.Helper()
		for _, l := range leaks {
			if strings.Contains(text, l) {
				t.Errorf("%s shows a key (%s...):\n%s", what, l, text)
			}
		}
	}
	stdout, stderr, code := hearth(t, env, "", "ask", "-v", "hi")
	if code == 0 || !strings.Contains(stderr, "rejected the API key") || !strings.Contains(stderr, "****") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	check("ask stdout", stdout)
	check("ask stderr", stderr)
	stdout, stderr, _ = hearth(t, env, "hi\n", "chat", "-v")
	check("chat stdout", stdout)
	check("chat stderr", stderr)
	check("hearth.log", readLogs(t, home))
}

// spewStderr is a plugin's start: a line with a secret, then n bytes of
// noise on stderr, as fast as the pipe takes them.
func spewStderr(n, secretLine string) {
	total, _ := strconv.Atoi(n)
	fmt.Fprintln(os.Stderr, secretLine)
	line := strings.Repeat("noise ", 170) + "\n" // about 1 KB
	for written := 0; written < total; written += len(line) {
		os.Stderr.WriteString(line)
	}
}

func TestPluginStderrFloodLeavesBoundedLog(t *testing.T) {
	const key = "sk-plugin-leak-0011223344556677"
	home := t.TempDir()
	src := filepath.Join(t.TempDir(), "noisy")
	os.MkdirAll(src, 0o755)
	manifest := fmt.Sprintf(`{"id": "noisy", "command": [%q], "env": {"HEARTH_TEST_SPEW_STDERR": "%d",
		"HEARTH_TEST_SPEW_LINE": "my token is %s", "HEARTH_TEST_SERVE_WEATHER": "1"}}`, os.Args[0], 20<<20, key)
	os.WriteFile(filepath.Join(src, "plugin.json"), []byte(manifest), 0o644)
	base := []string{"HEARTH_HOME=" + home}
	if out, errOut, code := hearth(t, base, "", "plugin", "install", src); code != 0 {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "ok"})
	start := time.Now()
	// ask waits for the plugin's handshake, which comes after the flood.
	if out, errOut, code := hearth(t, append(base, "OPENAI_BASE_URL="+srv.URL, "HEARTH_MODEL=test-model", "OPENAI_API_KEY="+key), "", "ask", "hi"); code != 0 || out != "ok\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	elapsed := time.Since(start)
	log := readLogs(t, home)
	// The relay passes a burst and then a steady rate; whatever the
	// flood's speed, the log holds at most that much of it (twice over,
	// for the log's own formatting).
	bound := 2 * (256<<10 + int(elapsed.Seconds()+1)*32<<10)
	if len(log) > bound {
		t.Fatalf("20 MB of plugin stderr left %d bytes of log (bound %d after %v)", len(log), bound, elapsed)
	}
	if !strings.Contains(log, "dropped_lines=") || !strings.Contains(log, "plugin=noisy") {
		t.Fatalf("no note of the dropped lines in the log:\n%s", log[max(0, len(log)-2000):])
	}
	if strings.Contains(log, "0011223344556677") || !strings.Contains(log, "my token is ****6677") {
		t.Fatalf("the key is not masked in the log")
	}
}

// bigPlugin has a tool whose result is over the size limit, and one that
// says whether it ever ran.
type bigPlugin struct{}

func newBigPlugin(string, map[string]any) (sdk.Plugin, error) { return bigPlugin{}, nil }

func (bigPlugin) Name() string { return "big" }
func (bigPlugin) Stop() error  { return nil }
func (bigPlugin) Start(s *sdk.PluginSDK) error {
	if err := s.RegisterTool("dump", sdk.ToolDef{Description: "dump everything", Effect: sdk.EffectRead},
		func(map[string]any) (any, error) { return strings.Repeat("row\n", 1<<20), nil }); err != nil {
		return err
	}
	return s.RegisterTool("store", sdk.ToolDef{Description: "store text", Effect: sdk.EffectRead},
		func(map[string]any) (any, error) { return "stored: the handler ran", nil })
}

func TestOversizedToolCallsAreRefused(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "d", Name: "big__dump", Arguments: `{}`},
			{ID: "s", Name: "big__store", Arguments: `{"text":"` + strings.Repeat("a", 2<<20) + `"}`},
		}},
		llmtest.Reply{Text: "done"})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir(), "HEARTH_TEST_BIG_TOOLS=1"}
	if stdout, stderr, code := hearth(t, env, "", "ask", "dump it all"); code != 0 || stdout != "done\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	results := map[string]string{}
	for _, m := range srv.Requests()[1].Messages {
		if m["role"] == "tool" {
			results[m["tool_call_id"].(string)] = m["content"].(string)
		}
	}
	if r := results["d"]; len(r) > 1000 || !strings.Contains(r, "over the limit of 1048576 bytes") {
		t.Errorf("oversized result sent to the model as %.200q (%d bytes)", r, len(r))
	}
	if r := results["s"]; len(r) > 1000 || !strings.Contains(r, "over the limit of 1048576 bytes") || strings.Contains(r, "handler ran") {
		t.Errorf("oversized arguments answered %.200q", r)
	}
}
