//go:build unix

package compat

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// pyRow is one row of the Python compatibility table: a feature (a seed
// name, or what Go child plugins have), the test plugin that uses it, and
// what is checked once Hearth ran it.
type pyRow[S any] struct {
	symbol, plugin, what string
	check                func(t *testing.T, s S)
}

// parityRun is what one turn through the pyparity plugin left behind.
type parityRun struct {
	h       *pyHearth
	results map[string]string // tool results of the owner's turn, by call id
	inj     map[string]string // tool results of the injected turn
	answer  string
}

// The Python SDK has what Go child plugins have, each row run through a
// real Hearth with the plugin as a python3 child.
func TestPythonParity(t *testing.T) {
	h := openPyHearth(t, []string{"pyparity"},
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "src", Name: "pyparity__sources", Arguments: `{}`},
			{ID: "veto", Name: "pyparity__note", Arguments: `{"text":"veto"}`},
			{ID: "forb", Name: "pyparity__note", Arguments: `{"text":"forbidden"}`},
			{ID: "ok", Name: "pyparity__note", Arguments: `{"text":"fine"}`},
			{ID: "relay", Name: "pyparity__relay", Arguments: `{"text":"内部问题"}`},
			{ID: "empty", Name: "pyparity__empties", Arguments: `{}`},
			{ID: "imp", Name: "pyparity__impersonate", Arguments: `{}`},
			{ID: "svc", Name: "pyparity__services", Arguments: `{}`},
		}},
		// The injected turn tries a write tool, then answers.
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "injw", Name: "pyparity__note", Arguments: `{"text":"from the plugin"}`}}},
		llmtest.Reply{Text: "内部答复"},
		llmtest.Reply{Text: "好的。"},
	)
	out := h.ask(t, "你好")
	if out.Err != nil || out.Text != "好的。" {
		t.Fatalf("%+v", out)
	}
	run := &parityRun{h: h, results: h.toolResults(t, 3), inj: h.toolResults(t, 2), answer: out.Text}
	rows := []pyRow[*parityRun]{
		{"Services.inject_sync", "pyparity", "a tool's injected turn is answered and the answer comes back",
			func(t *testing.T, r *parityRun) { pyWant(t, r.results["relay"], `{"answer":"内部答复"}`) }},
		{"Services.inject_sync (rights)", "pyparity", "the injected turn runs with the plugin's rights: a write tool is not even offered",
			func(t *testing.T, r *parityRun) {
				if got := r.inj["injw"]; !strings.Contains(got, `unknown tool`) || strings.Contains(got, "saved") {
					t.Errorf("injected write: %s", got)
				}
			}},
		{"Services.list_sources/current_source", "pyparity", "the configured sources and the one in use",
			func(t *testing.T, r *parityRun) {
				pyHas(t, r.results["src"], `"sources":["env"]`)
				pyHas(t, r.results["src"], `"current":"env"`)
			}},
		{"define_plugin(start=)", "pyparity", "start runs after the handshake and its setting is kept",
			func(t *testing.T, r *parityRun) { pyHas(t, r.results["src"], `"started":true`) }},
		{"stages: on_input", "pyparity", "the handler rewrites the input; injected input names its plugin",
			func(t *testing.T, r *parityRun) {
				if !r.h.sawText(t, 0, "你好 (via person)") || !r.h.sawText(t, 1, "内部问题 (via pyparity)") {
					t.Error("on_input did not rewrite both inputs")
				}
			}},
		{"stages: pre_action", "pyparity", "the handler adds a message the model reads",
			func(t *testing.T, r *parityRun) {
				if !r.h.sawText(t, 0, "pyparity stage ran") {
					t.Error("no pre_action message")
				}
			}},
		{"define_stage(own_tools=True)", "pyparity", "a before_toolcall handler of its own tools denies a call",
			func(t *testing.T, r *parityRun) { pyHas(t, r.results["forb"], "pyparity refuses forbidden notes") }},
		{"decide", "pyparity", "a decision hook denies a call with its reason",
			func(t *testing.T, r *parityRun) { pyHas(t, r.results["veto"], "pyparity vetoed it") }},
		{"decide (allow)", "pyparity", "an allowed write runs",
			func(t *testing.T, r *parityRun) { pyWant(t, r.results["ok"], "saved") }},
		{"Services.register_setting/set_setting/get_setting", "pyparity", "a declared setting's max is enforced; its default answers",
			func(t *testing.T, r *parityRun) {
				pyHas(t, r.results["svc"], `"over_max":"refused","defs":["limit"],"limit":10`)
			}},
		{"Services.get_core", "pyparity", "core.daemon.data_dir answers the plugin's own data directory",
			func(t *testing.T, r *parityRun) { pyHas(t, r.results["svc"], `"data_dir":true`) }},
		{"Services.setting_plugins", "pyparity", "settings.plugins lists the plugins with settings",
			func(t *testing.T, r *parityRun) { pyHas(t, r.results["svc"], `"plugins":true`) }},
		{"Services.commit/recall/introspect", "pyparity", "the graph memory keeps a triple and recalls it",
			func(t *testing.T, r *parityRun) {
				pyHas(t, r.results["svc"], `"recall":["围棋","小明"],"introspect":true`)
			}},
		{"Services.insert_doc/query_docs", "pyparity", "the document memory finds an inserted document",
			func(t *testing.T, r *parityRun) { pyHas(t, r.results["svc"], `"doc":true,"docs":["笔记"]`) }},
		{"Services.add_knowledge/search_knowledge/list_knowledge", "pyparity", "the knowledge base finds an added entry",
			func(t *testing.T, r *parityRun) {
				pyHas(t, r.results["svc"], `"knowledge":["wifi"],"knowledge_list":true`)
			}},
		{"Services.inject (refused)", "pyparity", "another channel, as a user, without input.channels and input.user: refused",
			func(t *testing.T, r *parityRun) { pyHas(t, r.results["imp"], "refused (-32002)") }},
		{"KV / Services.get_setting (empty values)", "pyparity", "[] and \"\" are stored and read back as values",
			func(t *testing.T, r *parityRun) { pyWant(t, r.results["empty"], `{"kv":[[],""],"setting":""}`) }},
	}
	for _, row := range rows {
		t.Run(row.symbol, func(t *testing.T) { row.check(t, run) })
	}
}

func pyWant(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func pyHas(t *testing.T, got, part string) {
	t.Helper()
	if !strings.Contains(got, part) {
		t.Errorf("%s does not contain %s", got, part)
	}
}

// pkuRun is what the pypku plugin left behind in Hearth.
type pkuRun struct {
	h       *pyHearth
	results map[string]string // tool results by call id
	tools   map[string]string // the model's tool descriptions, by name
	pku     *wire.PKUManifest
	defs    map[string]string // preference settings' display names
	setErr  error             // a preference value the plugin refused
	stored  map[string]string // preference settings as Hearth keeps them
}

// The PKU harness plugin model (seed 001), in Python: one row per name of
// the seed, each used by the pypku test plugin and checked in Hearth.
func TestPythonPKU(t *testing.T) {
	h := openPyHearthWith(t, []string{"pypku"}, func(a *app.App) {
		// What the old plugin id left, before the plugin that replaces it starts.
		for key, v := range map[string]string{"apps": `["微信"]`, "theme": `"dark"`, "api_token": `"s3cret"`} {
			if err := a.Settings.SetJSON("old-pypku", key, json.RawMessage(v)); err != nil {
				t.Fatal(err)
			}
		}
	},
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "apps", Name: "pypku__apps", Arguments: `{}`},
			{ID: "open", Name: "pypku__open", Arguments: `{"app":"微信"}`},
			{ID: "prov", Name: "pypku__provider", Arguments: `{}`},
			{ID: "help", Name: "pypku__helpers", Arguments: `{}`},
		}},
		llmtest.Reply{Text: "好的。"},
	)
	ctx := context.Background()
	run := &pkuRun{h: h, defs: map[string]string{}, stored: map[string]string{}}
	// A change through Hearth goes through the preference's input and set.
	if err := h.app.Settings.SetJSON("pypku", "apps", json.RawMessage(`["微信","淘宝"]`)); err != nil {
		t.Fatal(err)
	}
	run.setErr = h.app.Settings.SetJSON("pypku", "apps", json.RawMessage(`["a","b","c","d"]`))
	for _, name := range []string{"apps", "screenshots", "theme", "api_token"} {
		raw, _, err := h.app.Settings.Value("pypku", name)
		if err != nil {
			t.Fatal(err)
		}
		run.stored[name] = string(raw)
	}
	for _, d := range h.app.Settings.Defs("pypku", "") {
		run.defs[d.Key] = d.DisplayName
	}
	out := h.ask(t, "有哪些应用？")
	if out.Err != nil || out.Text != "好的。" {
		t.Fatalf("%+v", out)
	}
	run.results = h.toolResults(t, 1)
	run.tools = map[string]string{}
	for _, tool := range h.srv.Requests()[0].Tools {
		if f, ok := tool["function"].(map[string]any); ok {
			run.tools[f["name"].(string)], _ = f["description"].(string)
		}
	}
	infos, err := h.app.Plugins.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.ID == "pypku" && in.Status != nil {
			run.pku = in.Status.PKU
		}
	}
	if run.pku == nil {
		t.Fatal("Hearth kept no PKU manifest of pypku")
	}
	result := func(id, part string) func(*testing.T, *pkuRun) {
		return func(t *testing.T, r *pkuRun) { pyHas(t, r.results[id], part) }
	}
	rows := []pyRow[*pkuRun]{
		{"definePlugin", "pypku", "define_plugin's manifest loads and its tools are offered", func(t *testing.T, r *pkuRun) {
			if _, ok := r.tools["pypku__apps"]; !ok {
				t.Errorf("tools: %v", r.tools)
			}
		}},
		{"defineTool", "pypku", "a define_tool tool runs", result("apps", `"apps":["微信","淘宝"]`)},
		{"definePreference", "pypku", "a preference is the Hearth setting pypku.apps, set through the plugin's set", func(t *testing.T, r *pkuRun) {
			pyWant(t, r.stored["apps"], `["微信","淘宝"]`)
		}},
		{"PluginDef", "pypku", "the manifest's PKU fields reach Hearth", func(t *testing.T, r *pkuRun) {
			pyWant(t, strings.Join(slices.Sorted(maps.Keys(r.pku.Preferences)), ","), "apps,screenshots")
		}},
		{"ToolDef", "pypku", "title, effect and input travel (arguments validated by Hearth)", result("open", "opened")},
		{"ToolAssessment", "pypku", "resolve_effect's assessment is accepted and the call runs", result("open", "opened")},
		{"ToolContext", "pypku", "execute gets the call's context (actor, kv)", result("apps", `"actor":"agent"`)},
		{"Actor", "pypku", "the actor is one of user, agent, scheduler", result("apps", `"actor":"agent"`)},
		{"TurnInfo", "pypku", "the turn travels (tainted)", result("apps", `"tainted":false`)},
		{"KV", "pypku", "the preference's set wrote the plugin's kv, which a tool reads", result("apps", `"vision":false`)},
		{"ToolEffect", "pypku", "effects travel: a read tool is offered", result("apps", `"apps"`)},
		{"Capability", "pypku", "requires: network is met, so the plugin is shown", func(t *testing.T, r *pkuRun) {
			if len(r.tools) == 0 {
				t.Error("no tools offered")
			}
		}},
		{"Dynamic", "pypku", "a tool description written as a function is asked when the request is built", func(t *testing.T, r *pkuRun) {
			pyWant(t, r.tools["pypku__apps"], "列出允许的应用（现在 2 个）。")
		}},
		{"resolveDynamic", "pypku", "resolve_dynamic runs in the plugin", result("help", `"dynamic":"列出允许的应用（现在 2 个）。"`)},
		{"DataSourceDef", "pypku", "the data source reaches Hearth", func(t *testing.T, r *pkuRun) {
			ds := r.pku.DataSources["apps"]
			if ds.Tool != "apps" || ds.TTLMS != 60000 {
				t.Errorf("%+v", ds)
			}
		}},
		{"ContextInput", "pypku", "context gets query and kv; its text reaches the model", func(t *testing.T, r *pkuRun) {
			if !r.h.sawText(t, 0, "允许的应用：微信、淘宝（问：有哪些应用？）") {
				t.Error("no context text")
			}
		}},
		{"CONTEXT_MARK", "pypku", "the marks are the seed's", result("help", `"mark":"- [更正] old → new","deleted":"[已删除]"`)},
		{"PluginTranslation", "pypku", "i18n.en's preference title is shown beside the original", func(t *testing.T, r *pkuRun) {
			pyWant(t, r.defs["screenshots"], "允许 AI 查看截图 / Let the AI see screenshots")
		}},
		{"SettingValue", "pypku", "a list value is stored as JSON", func(t *testing.T, r *pkuRun) { pyWant(t, r.stored["apps"], `["微信","淘宝"]`) }},
		{"PluginPreferenceDef", "pypku", "input refuses a value, with the plugin's message", func(t *testing.T, r *pkuRun) {
			if r.setErr == nil || !strings.Contains(r.setErr.Error(), "more than 3 items") {
				t.Errorf("set: %v", r.setErr)
			}
		}},
		{"SettingContext", "pypku", "get reads the plugin's kv at start: Hearth stores its value", func(t *testing.T, r *pkuRun) {
			pyWant(t, r.stored["screenshots"], "false")
		}},
		{"PluginLegacy", "pypku", "an old id's declared settings carry over and are recorded, never its secrets", func(t *testing.T, r *pkuRun) {
			if lines := pluginhost.LegacyLines(r.h.app.DataDir, "pypku"); len(lines) != 1 || !strings.HasPrefix(lines[0], "settings of old-pypku carried over: apps (") {
				t.Errorf("record %q", lines)
			}
			pyWant(t, r.stored["theme"], "") // not declared
			pyWant(t, r.stored["api_token"], "")
			pyHas(t, r.results["help"], `"legacy":"apps"`)
		}},
		{"ProviderAuth", "pypku", "the provider's auth travels", func(t *testing.T, r *pkuRun) { pyWant(t, r.pku.Providers["example"].Auth, "apiKey") }},
		{"ProviderDef", "pypku", "the provider loads; its functions are flagged", func(t *testing.T, r *pkuRun) {
			if p := r.pku.Providers["example"]; !p.HasBalance || p.HasSignIn || p.DefaultModel != "example-large" {
				t.Errorf("%+v", p)
			}
		}},
		{"ProviderConfig", "pypku", "ctx.provider answers: not supported by this host yet", result("prov", wire.NotSupported)},
		{"ProviderModel", "pypku", "models travel", func(t *testing.T, r *pkuRun) {
			if m := r.pku.Providers["example"].Models; len(m) != 1 || m[0].ContextWindow != 128000 {
				t.Errorf("%+v", m)
			}
		}},
		{"ModelPricing", "pypku", "pricing travels as data", func(t *testing.T, r *pkuRun) {
			pyHas(t, string(r.pku.Providers["example"].Models[0].Pricing), `"inputCacheMiss":2`)
		}},
		{"ProviderBalance", "pypku", "balance is flagged", func(t *testing.T, r *pkuRun) {
			if !r.pku.Providers["example"].HasBalance {
				t.Error("no balance")
			}
		}},
		{"ProviderAccount", "pypku", "the plugin's balance builds an account", result("help", `"account":1.5`)},
		{"SpeechProviderDef", "pypku", "the speech provider loads; transcribe and stream are flagged", func(t *testing.T, r *pkuRun) {
			if s := r.pku.Speech["asr"]; !s.HasTranscribe || !s.HasStream || s.CredentialFrom != "example" || s.KeyURL != "https://example.com/keys" {
				t.Errorf("%+v", s)
			}
		}},
		{"SpeechConfig", "pypku", "stream takes a SpeechConfig", result("help", `"stream":"AAA=BBB="`)},
		{"SpeechAudio", "pypku", "a recording defaults to WAV", result("help", `"audio":"audio/wav"`)},
		{"SpeechStreamHandlers", "pypku", "stream takes its handlers", result("help", `"stream":"AAA=BBB="`)},
		{"SpeechStream", "pypku", "stream is flagged", func(t *testing.T, r *pkuRun) {
			if !r.pku.Speech["asr"].HasStream {
				t.Error("no stream")
			}
		}},
		{"openAITranscribe", "pypku", "open_ai_transcribe is a speech provider's transcribe (its HTTP is tested in test_hearth_pku.py)", func(t *testing.T, r *pkuRun) {
			if !r.pku.Speech["asr"].HasTranscribe {
				t.Error("no transcribe")
			}
		}},
		{"cleanTranscript", "pypku", "control tokens and extra space go", result("help", `"clean":"你好 世界"`)},
		{"speechErrorMessage", "pypku", `"<status>: <message>"`, result("help", `"error":"401: bad key"`)},
		{"OcrProviderDef", "pypku", "the OCR provider loads", func(t *testing.T, r *pkuRun) {
			pyWant(t, r.pku.OCR["scan"].CredentialFrom, "example")
		}},
		{"OcrDocument", "pypku", "recognize reads an OcrDocument", result("help", `"ocr":"## Page 1\ns.pdf"`)},
	}
	for _, row := range rows {
		t.Run(row.symbol, func(t *testing.T) { row.check(t, run) })
	}
	// Hearth runs the Python plugin's speech provider over the protocol
	// (pku_speech_test.go).
	t.Run("speech.transcribe", func(t *testing.T) { checkPluginSpeech(t, h.app.Plugins, "pypku.asr", "asr-1") })
	t.Run("ocr.recognize", func(t *testing.T) { checkPluginOCRPages(t, h.app.Plugins, "pypku.scan") })
	if len(rows) != 39 {
		t.Errorf("%d rows; the seed has 39 names", len(rows))
	}
}

// The SDK's own unit tests of the PKU surface (the speech helpers against
// a loopback HTTP server among them).
func TestPythonPKUUnitTests(t *testing.T) {
	cmd := exec.Command("python3", "-m", "unittest", "test_hearth_pku")
	cmd.Dir = filepath.Join("..", "..", "sdk", "python")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python unit tests failed: %v\n%s", err, out)
	}
}
