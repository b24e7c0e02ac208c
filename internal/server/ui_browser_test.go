package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/web"
)

// The browser tests drive Debian's Chromium headless with playwright-core
// (web/package.json) through the scripts in web/test, against the real
// server with the embedded UI on loopback and a scripted model. They need
//
//	apt-get install -y --no-install-recommends chromium fonts-noto-cjk
//	npm ci --prefix web
//
// which .ci/run does. Screenshots go to $HEARTH_SCREENSHOTS, or a
// temporary folder whose path is logged.

// webDir is the repository's web/ folder.
func webDir(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "web")
}

// browserReady skips the test, saying how to install them, when
// Chromium, node or web/node_modules are missing.
func browserReady(t *testing.T) (node string) {
	t.Helper()
	chromium := os.Getenv("HEARTH_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("Chromium is missing: apt-get install -y --no-install-recommends chromium fonts-noto-cjk (.ci/run does)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is missing: install Node.js 20 or later")
	}
	if _, err := os.Stat(filepath.Join(webDir(t), "node_modules", "playwright-core")); err != nil {
		t.Skip("web/node_modules is missing: npm ci --prefix web (.ci/run does)")
	}
	return node
}

// uiEnv is a running Hearth with the embedded UI.
type uiEnv struct {
	app   *app.App
	url   string
	model *llmtest.Server
}

// startUI serves a Hearth with the UI on loopback. With replies, the
// OpenAI-compatible source points at a scripted model answering them;
// without, Hearth starts with no provider (the onboarding).
func startUI(t *testing.T, plugins map[string]func(*sdk.PluginSDK) error, replies ...llmtest.Reply) *uiEnv {
	t.Helper()
	env := map[string]string{}
	e := &uiEnv{}
	if replies != nil {
		e.model = llmtest.NewServer(t, replies...)
		env["OPENAI_BASE_URL"] = e.model.URL
		env["HEARTH_MODEL"] = "test-model"
		env["OPENAI_API_KEY"] = "sk-test-browser-0123456789"
	}
	a, err := app.Open(context.Background(), &app.Options{DataDir: t.TempDir(), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	for name, start := range plugins {
		err := a.Kernel.LoadPlugin(name, func(n string, _ map[string]any) (sdk.Plugin, error) {
			return uiPlugin{n, start}, nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	s := New(a, &Options{Token: testToken, UI: web.FS()})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	e.app, e.url = a, hs.URL
	return e
}

type uiPlugin struct {
	name  string
	start func(*sdk.PluginSDK) error
}

func (p uiPlugin) Name() string                 { return p.name }
func (p uiPlugin) Start(s *sdk.PluginSDK) error { return p.start(s) }
func (p uiPlugin) Stop() error                  { return nil }

// screenshots is the folder the scripts write screenshots to.
func screenshots(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("HEARTH_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browse runs web/test/<script>.mjs against e and fails the test when it
// fails; its output is logged.
func browse(t *testing.T, node string, e *uiEnv, script string) {
	t.Helper()
	dir := screenshots(t)
	cmd := exec.Command(node, filepath.Join(webDir(t), "test", script+".mjs"), e.url, testToken)
	cmd.Env = append(os.Environ(), "HEARTH_SCREENSHOTS="+dir)
	out, err := cmd.CombinedOutput()
	t.Logf("%s (screenshots in %s):\n%s", script, dir, out)
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
}

func TestBrowserToken(t *testing.T) {
	node := browserReady(t)
	browse(t, node, startUI(t, nil, llmtest.Reply{Text: "hi"}), "token")
}

func TestBrowserLanguage(t *testing.T) {
	node := browserReady(t)
	browse(t, node, startUI(t, map[string]func(*sdk.PluginSDK) error{"weather": uiWeather}, llmtest.Reply{Text: "hi"}), "lang")
}

// chatAnswer is Markdown with a table, a code block, and what a hostile
// answer might try: raw HTML with a handler and a javascript: link.
const chatAnswer = "Here you are:\n\n| city | weather |\n|---|---|\n| Beijing | sunny |\n| Shanghai | rain |\n\n" +
	"```go\nfmt.Println(\"hi\")\n```\n\n<img src=x onerror=alert(1)> [click](javascript:alert(1)) [docs](https://example.com)\n"

func TestBrowserChatStreamsMarkdown(t *testing.T) {
	node := browserReady(t)
	e := startUI(t, nil, llmtest.Reply{Reasoning: "The user wants a table.", Text: chatAnswer})
	browse(t, node, e, "chat")
}

func TestBrowserApproveToolCall(t *testing.T) {
	node := browserReady(t)
	ran := make(chan string, 1)
	notes := func(s *sdk.PluginSDK) error {
		type in struct {
			Text string `json:"text"`
		}
		return sdk.AddTool(s, sdk.ToolDef{Name: "write", Description: "save a note", Title: "Save a note",
			Effect: sdk.EffectWrite, AlwaysAsk: true},
			func(_ context.Context, _ *sdk.ToolContext, a in) (string, error) {
				ran <- a.Text
				return "saved", nil
			})
	}
	paid := make(chan string, 1)
	shop := func(s *sdk.PluginSDK) error {
		type in struct {
			Item string `json:"item"`
		}
		return sdk.AddTool(s, sdk.ToolDef{Name: "buy", Description: "buy something", Title: "Buy", Effect: sdk.EffectMoney, AlwaysAsk: true},
			func(_ context.Context, _ *sdk.ToolContext, a in) (string, error) {
				paid <- a.Item
				return "bought", nil
			})
	}
	e := startUI(t, map[string]func(*sdk.PluginSDK) error{"notes": notes, "shop": shop},
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "notes__write", Arguments: `{"text":"buy milk"}`}}},
		llmtest.Reply{Text: "Saved your note."},
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "shop__buy", Arguments: `{"item":"tea"}`}}},
		llmtest.Reply{Text: "Bought it."})
	browse(t, node, e, "approve")
	select {
	case got := <-ran:
		if got != "buy milk" {
			t.Fatalf("the tool ran with %q", got)
		}
	default:
		t.Fatal("the approved tool did not run")
	}
	select {
	case got := <-paid:
		if got != "tea" {
			t.Fatalf("the spending tool ran with %q", got)
		}
	default:
		t.Fatal("the spending tool allowed always did not run")
	}
}

// uiWeatherSecret is the weather plugin's stored API key: the settings test
// checks the browser never receives it.
const uiWeatherSecret = "sk-weather-secret-7d1e0c"

func uiWeather(s *sdk.PluginSDK) error {
	set := s.Settings()
	for _, d := range []sdk.ConfigDef{
		{Key: "city", Type: "string", DisplayName: "City", Default: "Beijing", Required: true, Description: "Where to look"},
		{Key: "units", Type: "string", DisplayName: "Units", Options: []string{"c", "f"}, Default: "c"},
		{Key: "days", Type: "number", DisplayName: "Days", Min: 1, Max: 7, Step: 1, Default: 3.0},
		{Key: "alerts", Type: "boolean", DisplayName: "Alerts"},
		{Key: "api_key", Type: "string", DisplayName: "API key", Secret: true, Category: "Account"},
	} {
		set.RegisterDef(d)
	}
	return set.Set("api_key", uiWeatherSecret)
}

func TestBrowserSettingsForm(t *testing.T) {
	node := browserReady(t)
	e := startUI(t, map[string]func(*sdk.PluginSDK) error{"weather": uiWeather}, llmtest.Reply{Text: "hi"})
	t.Setenv("HEARTH_TEST_SECRET", uiWeatherSecret)
	browse(t, node, e, "settings")
}

func TestBrowserPages(t *testing.T) {
	node := browserReady(t)
	e := startUI(t, map[string]func(*sdk.PluginSDK) error{"weather": uiWeather}, llmtest.Reply{Text: "It is sunny."})
	ctx := context.Background()
	if err := e.app.Memory.Commit(scope.Everything(), []sdk.Triple{{Subject: "Alice", Relation: "works_at", Object: "ACME"},
		{Subject: "Alice", Relation: "lives_in", Object: "北京"},
		{Subject: "Bob", Relation: "knows", Object: "Alice"}, {Subject: "Robert", Relation: "lives_in", Object: "北京"}}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*sdk.Doc{{ID: "trip", Title: "Trip to Hangzhou", Content: "# Trip\n\nWest Lake in **April**. 西湖。"},
		{ID: "recipe", Title: "Dumplings", Content: "Pork and cabbage, 200 g flour."}} {
		if err := e.app.Docs.Insert(scope.Everything(), d); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.app.KB.Add(scope.Everything(), "wifi", "# Home WiFi\n\nThe password is on the router."); err != nil {
		t.Fatal(err)
	}
	if out := e.app.Kernel.Ask(ctx, kernel.Input{Injection: sdk.Injection{Channel: "web", ChatID: "c1", UserID: "owner", Text: "weather?"}}); out.Err != nil {
		t.Fatal(out.Err)
	}
	browse(t, node, e, "pages")
}

func TestBrowserOnboarding(t *testing.T) {
	node := browserReady(t)
	model := llmtest.NewServer(t, llmtest.Reply{Text: "OK"}, llmtest.Reply{Text: "Hello from the fake model."})
	e := startUI(t, nil) // no provider: a fresh Hearth
	t.Setenv("HEARTH_TEST_MODEL_URL", model.URL)
	browse(t, node, e, "onboard")
	if n := len(model.Requests()); n != 2 {
		t.Fatalf("the model got %d requests, want 2 (the test, the chat)", n)
	}
	if got := model.Requests()[1].Authorization; got != "Bearer sk-onboarding-0123456789" {
		t.Fatalf("the chat was sent with %q", got)
	}
}

func TestBrowserApprovalFromAnotherChannel(t *testing.T) {
	node := browserReady(t)
	ran := make(chan string, 1)
	notes := func(s *sdk.PluginSDK) error {
		type in struct {
			Text string `json:"text"`
		}
		return sdk.AddTool(s, sdk.ToolDef{Name: "write", Description: "save a note", Effect: sdk.EffectWrite, AlwaysAsk: true},
			func(_ context.Context, _ *sdk.ToolContext, a in) (string, error) {
				ran <- a.Text
				return "saved", nil
			})
	}
	e := startUI(t, map[string]func(*sdk.PluginSDK) error{"notes": notes},
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "notes__write", Arguments: `{"text":"from curl"}`}}},
		llmtest.Reply{Text: "Saved your note."})
	// The OpenAI client is a guest (read-only) unless the owner says
	// otherwise, as `hearth policy role openai owner owner` does.
	if err := e.app.Store.SetRole(context.Background(), store.RoleAssignment{Channel: "openai", User: "owner", Role: "owner"}); err != nil {
		t.Fatal(err)
	}
	if err := e.app.Policy.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	// An OpenAI client asks; its turn waits for an approval.
	type answer struct {
		status int
		body   string
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", e.url+"/v1/chat/completions",
			strings.NewReader(`{"model":"hearth","messages":[{"role":"user","content":"note: from curl"}]}`))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- answer{resp.StatusCode, string(b), err}
	}()
	browse(t, node, e, "approve-other")
	got := <-done
	if got.err != nil || got.status != http.StatusOK || !strings.Contains(got.body, "Saved your note.") {
		t.Fatalf("the OpenAI client got %d %q (%v)", got.status, got.body, got.err)
	}
	if text := <-ran; text != "from curl" {
		t.Fatalf("the tool ran with %q", text)
	}
}

func TestBrowserInterrupt(t *testing.T) {
	node := browserReady(t)
	e := startUI(t, nil, llmtest.Reply{Hang: true}, llmtest.Reply{Text: "Hi!"})
	browse(t, node, e, "interrupt")
}

// A model call refused with a 429 and Retry-After is tried again after
// it: the answer shows why and when until the retry answers.
func TestBrowserRetry(t *testing.T) {
	node := browserReady(t)
	e := startUI(t, nil, llmtest.Reply{Status: 429, ErrorMessage: "slow down", RetryAfter: "2"}, llmtest.Reply{Text: "Here after the retry."})
	browse(t, node, e, "retry")
}

// The stop button: a turn whose model never answers is interrupted
// through POST /v1/sessions/{id}/interrupt, and the answer shows it.
func TestBrowserStop(t *testing.T) {
	node := browserReady(t)
	e := startUI(t, nil, llmtest.Reply{Hang: true})
	browse(t, node, e, "stop")
}
