//go:build unix

package compat

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// pkuTSRow is one name of the PKU harness plugin model (seed 001): the
// test plugin that uses it through the TypeScript SDK and what Hearth is
// checked to do with it.
type pkuTSRow struct {
	name   string // the seed's name
	plugin string // the test plugin (testdata/pku-ts) or script
	checks string // what is checked
	check  func(t *testing.T, e *pkuTSEnv)
}

// pkuTSEnv is what the rows check: one Hearth running the test plugins
// after one scripted turn, and the outcomes gathered around it.
type pkuTSEnv struct {
	h        *tsHearth
	status   map[string]any // what pkuall__status returned to the model
	pku      *wire.PKUManifest
	speech   map[string]string // speech.mjs's output
	badTags  error             // a list preference the plugin's zod refused
	badMode  error             // a choice outside its options
	tagsSeen json.RawMessage   // Hearth's copy of a preference it read from the plugin
}

// pkuTSRows has one row per name of seed 001, all 39.
var pkuTSRows = []pkuTSRow{
	{"definePlugin", "pkuall", "the plugin loads and runs", func(t *testing.T, e *pkuTSEnv) {
		if st := e.h.status(t, "pkuall"); st.State != "running" {
			t.Fatalf("state %s", st.State)
		}
	}},
	{"defineTool", "pkuall", "its tools are registered with their title and effect", func(t *testing.T, e *pkuTSEnv) {
		tool, ok := e.h.app.Kernel.Tools().Lookup("pkuall__status")
		if !ok || tool.Def.Title != "状态" || tool.Def.Effect != "read" || !tool.Def.DayScoped {
			t.Fatalf("%+v", tool)
		}
	}},
	{"definePreference", "pkuall", "each preference is a Hearth setting <plugin>.<name> with its options", func(t *testing.T, e *pkuTSEnv) {
		defs := e.h.app.Settings.Defs("pkuall", "mode")
		if len(defs) != 1 || !slices.Equal(defs[0].Options, []string{"calm", "loud"}) || defs[0].Type != "string" {
			t.Fatalf("%+v", defs)
		}
	}},
	{"PluginDef", "pkuall", "instructions reach the system prompt; maxAgentSteps, icon, core, scopes load", func(t *testing.T, e *pkuTSEnv) {
		if !strings.Contains(e.h.request(t, 0), "查状态（object）") {
			t.Fatal("no instructions in the first request")
		}
	}},
	{"ToolDef", "pkuall", "a tool with resolveEffect is asked before its call", func(t *testing.T, e *pkuTSEnv) {
		tool, _ := e.h.app.Kernel.Tools().Lookup("pkuall__pay")
		if tool == nil || tool.Def.ResolveEffect == nil || tool.Def.Effect != "write" {
			t.Fatalf("%+v", tool)
		}
	}},
	{"ToolAssessment", "pkuall", "resolveEffect's { effect, target } is the call's assessment", func(t *testing.T, e *pkuTSEnv) {
		tool, _ := e.h.app.Kernel.Tools().Lookup("pkuall__pay")
		a, err := tool.Def.ResolveEffect(context.Background(), map[string]any{"to": "bob", "amount": 5})
		if err != nil || a.Effect != "money" || a.Target == nil || a.Target.Label != "付给 bob" {
			t.Fatalf("%+v %v", a, err)
		}
	}},
	{"ToolContext", "pkuall", "execute gets pluginId, kv and services", func(t *testing.T, e *pkuTSEnv) {
		if e.status["pluginId"] != "pkuall" || e.status["dyn"] != "function" {
			t.Fatalf("%v", e.status)
		}
	}},
	{"Actor", "pkuall", "the model's call has actor agent", func(t *testing.T, e *pkuTSEnv) {
		if e.status["actor"] != "agent" {
			t.Fatalf("%v", e.status)
		}
	}},
	{"TurnInfo", "pkuall", "turn.tainted is false in a clean turn", func(t *testing.T, e *pkuTSEnv) {
		if e.status["tainted"] != false {
			t.Fatalf("%v", e.status)
		}
	}},
	{"KV", "pkuall", "the preference's set wrote kv; the tool read it back", func(t *testing.T, e *pkuTSEnv) {
		if e.status["mode"] != "loud" {
			t.Fatalf("%v", e.status)
		}
	}},
	{"ToolEffect", "pkuall", "effects read, write and (resolved) money", func(t *testing.T, e *pkuTSEnv) {
		tool, _ := e.h.app.Kernel.Tools().Lookup("pkuall__pay")
		a, _ := tool.Def.ResolveEffect(context.Background(), map[string]any{"to": "bob", "amount": 0})
		if a.Effect != "read" {
			t.Fatalf("%+v", a)
		}
	}},
	{"Capability", "pkucloud", "requires: ['cloud'] hides a plugin, as Hearth has no Cloud", func(t *testing.T, e *pkuTSEnv) {
		if why := e.h.app.Kernel.Hidden()["pkucloud"]; !strings.Contains(why, "cloud") {
			t.Fatalf("hidden: %v", e.h.app.Kernel.Hidden())
		}
	}},
	{"Dynamic", "pkuall", "a function description is asked again when the request is built", func(t *testing.T, e *pkuTSEnv) {
		if !strings.Contains(e.h.request(t, 0), "状态工具，第 2 次描述") {
			t.Fatal("the request does not carry the description tool.describe gave")
		}
	}},
	{"resolveDynamic", "pkuall", "a Dynamic value resolves with the services", func(t *testing.T, e *pkuTSEnv) {
		if e.status["dyn"] != "function" {
			t.Fatalf("%v", e.status)
		}
	}},
	{"DataSourceDef", "pkuall", "data sources load, naming a tool of the plugin", func(t *testing.T, e *pkuTSEnv) {
		if ds := e.pku.DataSources["today"]; ds.Tool != "status" || ds.TTLMS != 60000 {
			t.Fatalf("%+v", e.pku.DataSources)
		}
	}},
	{"ContextInput", "pkuall", "context gets query and kv; its text reaches the turn", func(t *testing.T, e *pkuTSEnv) {
		if !strings.Contains(e.h.request(t, 0), "最近的问题：查状态；偏好：loud") {
			t.Fatal("no context in the first request")
		}
	}},
	{"CONTEXT_MARK", "pkuall", "the marks are the seed's", func(t *testing.T, e *pkuTSEnv) {
		if m, _ := json.Marshal(e.status["marks"]); string(m) != `["[已删除]","[更正]"," → "]` {
			t.Fatalf("%s", m)
		}
	}},
	{"PluginTranslation", "pkuall", "i18n.en is shown to people after the original (plugin show, settings); the model reads the original", func(t *testing.T, e *pkuTSEnv) {
		if d := e.h.app.Settings.Defs("pkuall", "mode"); len(d) != 1 || d[0].DisplayName != "模式 / Mode" {
			t.Fatalf("%+v", d)
		}
		if st := e.h.status(t, "pkuall"); st.Name != "PKU 全部 / PKU all" || st.Description != "用到 PKU 插件模型的每个名字。 / Uses every name." {
			t.Fatalf("%q %q", st.Name, st.Description)
		}
		if strings.Contains(e.h.request(t, 0), "Uses every name") {
			t.Fatal("the model read the English")
		}
	}},
	{"SettingValue", "pkuall", "a list preference's value (string[]) is read from the plugin and stored", func(t *testing.T, e *pkuTSEnv) {
		if string(e.tagsSeen) != `["a"]` {
			t.Fatalf("%s", e.tagsSeen)
		}
	}},
	{"PluginPreferenceDef", "pkuall", "a change is checked by options, then by the plugin's input", func(t *testing.T, e *pkuTSEnv) {
		if e.badMode == nil || e.badTags == nil || !strings.Contains(e.badTags.Error(), "invalid value") {
			t.Fatalf("mode: %v; tags: %v", e.badMode, e.badTags)
		}
	}},
	{"SettingContext", "pkuall", "get and set receive kv (the tool saw the value set wrote)", func(t *testing.T, e *pkuTSEnv) {
		if e.status["mode"] != "loud" {
			t.Fatalf("%v", e.status)
		}
	}},
	{"PluginLegacy", "pkuall", "an old id's declared settings carry over and are recorded; pluginIds, tools, widgets load", func(t *testing.T, e *pkuTSEnv) {
		if lines := pluginhost.LegacyLines(e.h.app.DataDir, "pkuall"); len(lines) != 1 || !strings.HasPrefix(lines[0], "settings of pku-old carried over: mode (") {
			t.Fatalf("record %q", lines)
		}
		for _, key := range []string{"color", "api_token"} { // not declared; a secret
			if raw, ok, _ := e.h.app.Settings.Value("pkuall", key); ok {
				t.Fatalf("%s of the old id was carried over: %s", key, raw)
			}
		}
	}},
	{"ProviderAuth", "pkuall", "auth loads", func(t *testing.T, e *pkuTSEnv) {
		if e.pku.Providers["example"].Auth != "apiKey" {
			t.Fatalf("%+v", e.pku.Providers)
		}
	}},
	{"ProviderDef", "pkuall", "a provider loads; it is listed as not supported yet", func(t *testing.T, e *pkuTSEnv) {
		p := e.pku.Providers["example"]
		if p.DefaultModel != "example-large" || !p.HasBalance || p.HasSignIn || !slices.Equal(p.Efforts, []string{"low", "high"}) {
			t.Fatalf("%+v", p)
		}
	}},
	{"ProviderConfig", "pkuall", "ctx.provider(key) rejects: not supported by this host yet", func(t *testing.T, e *pkuTSEnv) {
		if e.status["provider"] != "provider pkuall.example: not supported by this host yet" {
			t.Fatalf("%v", e.status["provider"])
		}
	}},
	{"ProviderModel", "pkuall", "models with contextWindow and inputModalities load", func(t *testing.T, e *pkuTSEnv) {
		m := e.pku.Providers["example"].Models
		if len(m) != 1 || m[0].ContextWindow != 128000 || !slices.Equal(m[0].InputModalities, []string{"text", "image"}) {
			t.Fatalf("%+v", m)
		}
	}},
	{"ModelPricing", "pkuall", "pricing loads", func(t *testing.T, e *pkuTSEnv) {
		if !strings.Contains(string(e.pku.Providers["example"].Models[0].Pricing), `"currency":"CNY"`) {
			t.Fatalf("%s", e.pku.Providers["example"].Models[0].Pricing)
		}
	}},
	{"ProviderBalance", "pkuall", "balance is flagged, not called", func(t *testing.T, e *pkuTSEnv) {
		if !e.pku.Providers["example"].HasBalance {
			t.Fatal("no balance")
		}
	}},
	{"ProviderAccount", "pkuall", "the balance function's type loads (type-checked)", func(t *testing.T, e *pkuTSEnv) {
		if !e.pku.Providers["example"].HasBalance {
			t.Fatal("no balance")
		}
	}},
	{"SpeechProviderDef", "pkuall", "a speech provider loads, credentialFrom naming a provider", func(t *testing.T, e *pkuTSEnv) {
		s := e.pku.Speech["asr"]
		if !s.HasTranscribe || s.HasStream || s.CredentialFrom != "example" {
			t.Fatalf("%+v", s)
		}
	}},
	{"SpeechConfig", "speech.mjs", "openAITranscribe uses baseURL, model and credential", func(t *testing.T, e *pkuTSEnv) {
		if e.speech["ok"] != "你好 世界" {
			t.Fatalf("%v", e.speech)
		}
	}},
	{"SpeechAudio", "speech.mjs", "the audio's file and name are uploaded", func(t *testing.T, e *pkuTSEnv) {
		if e.speech["ok"] != "你好 世界" {
			t.Fatalf("%v", e.speech)
		}
	}},
	{"SpeechStreamHandlers", "pkuall", "stream is flagged (absent here), never called", func(t *testing.T, e *pkuTSEnv) {
		if e.pku.Speech["asr"].HasStream {
			t.Fatal("stream flagged")
		}
	}},
	{"SpeechStream", "pkuall", "type-checked; a provider with transcribe runs, so it is not listed as unsupported", func(t *testing.T, e *pkuTSEnv) {
		if slices.ContainsFunc(unsupported(e), func(s string) bool { return strings.HasPrefix(s, "speech ") }) {
			t.Fatalf("%v", unsupported(e))
		}
	}},
	{"openAITranscribe", "speech.mjs", "POST {baseURL}/audio/transcriptions; errors as <status>: <message>", func(t *testing.T, e *pkuTSEnv) {
		if e.speech["failed"] != "401: bad key" {
			t.Fatalf("%v", e.speech)
		}
	}},
	{"cleanTranscript", "pkuall", "control tokens and extra spaces go", func(t *testing.T, e *pkuTSEnv) {
		if e.status["clean"] != "你好 世界" {
			t.Fatalf("%v", e.status["clean"])
		}
	}},
	{"speechErrorMessage", "pkuall", "the JSON error's message after the status", func(t *testing.T, e *pkuTSEnv) {
		if e.status["err"] != "401: bad key" {
			t.Fatalf("%v", e.status["err"])
		}
	}},
	{"OcrProviderDef", "pkuall", "an OCR service loads; it runs, so it is not listed as unsupported", func(t *testing.T, e *pkuTSEnv) {
		if e.pku.OCR["doc"].CredentialFrom != "example" || slices.ContainsFunc(unsupported(e), func(s string) bool { return strings.HasPrefix(s, "ocr ") }) {
			t.Fatalf("%+v %v", e.pku.OCR, unsupported(e))
		}
	}},
	{"OcrDocument", "pkuall", "recognize's type loads (type-checked), never called", func(t *testing.T, e *pkuTSEnv) {
		if _, ok := e.pku.OCR["doc"]; !ok {
			t.Fatal("no ocr")
		}
	}},
}

func unsupported(e *pkuTSEnv) []string {
	return pluginhost.Unsupported("pkuall", e.pku)
}

// TestPKUTypeScriptCompat runs the test plugins through Hearth once and
// checks each name of seed 001 (one subtest per row).
func TestPKUTypeScriptCompat(t *testing.T) {
	if len(pkuTSRows) != 39 {
		t.Fatalf("%d rows; seed 001 has 39 names", len(pkuTSRows))
	}
	e := &pkuTSEnv{}
	e.h = openTSHearthWith(t, []string{"pkuall", "pkucloud"}, func(a *app.App) {
		// What the old plugin id left, before the plugin that replaces it starts.
		for key, v := range map[string]string{"mode": `"calm"`, "color": `"blue"`, "api_token": `"s3cret"`} {
			if err := a.Settings.SetJSON("pku-old", key, json.RawMessage(v)); err != nil {
				t.Fatal(err)
			}
		}
	},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "s1", Name: "pkuall__status", Arguments: `{}`}}},
		llmtest.Reply{Text: "好。"},
	)
	svc := e.h.app.Settings
	var err error
	if e.tagsSeen, _, err = svc.Value("pkuall", "tags"); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetJSON("pkuall", "mode", json.RawMessage(`"loud"`)); err != nil {
		t.Fatal(err)
	}
	e.badMode = svc.SetJSON("pkuall", "mode", json.RawMessage(`"shout"`))
	e.badTags = svc.SetJSON("pkuall", "tags", json.RawMessage(`[1]`))
	if out := e.h.ask("查状态"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if err := json.Unmarshal([]byte(e.h.toolResult(t, 1, "s1")), &e.status); err != nil {
		t.Fatal(err)
	}
	e.pku = e.h.status(t, "pkuall").PKU
	if e.pku == nil {
		t.Fatal("no PKU manifest")
	}
	e.speech = transcribeAgainst(t)
	for _, row := range pkuTSRows {
		t.Run(row.name, func(t *testing.T) { row.check(t, e) })
	}
	// Hearth runs the plugin's speech and OCR providers over the protocol
	// (pku_speech_test.go).
	t.Run("speech.transcribe", func(t *testing.T) { checkPluginSpeech(t, e.h.app.Plugins, "pkuall.asr", "sense") })
	t.Run("ocr.recognize", func(t *testing.T) { checkPluginOCR(t, e.h.app.Plugins) })
}

// transcribeAgainst runs speech.mjs against a loopback transcription
// server that checks the request as OpenAI's API reads it.
func transcribeAgainst(t *testing.T) map[string]string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"bad key"}}`)
			return
		}
		_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		form, err := multipart.NewReader(r.Body, params["boundary"]).ReadForm(1 << 20)
		if err != nil || r.Header.Get("Authorization") != "Bearer k-123" || form.Value["model"][0] != "sense" ||
			len(form.File["file"]) != 1 || form.File["file"][0].Filename != "a.wav" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, "bad request")
			return
		}
		io.WriteString(w, `{"text":"<|zh|> 你好  世界 "}`)
	}))
	defer srv.Close()
	var out map[string]string
	if err := json.Unmarshal([]byte(nodeScript(t, "speech.mjs", srv.URL)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
