package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestResolveSources(t *testing.T) {
	file := &File{
		Source: "ds",
		Sources: map[string]SourceConfig{
			"ds":    {BaseURL: "https://api.deepseek.com/v1", APIKeyEnv: "DS_KEY"},
			"local": {BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen3:8b"},
		},
	}
	tests := []struct {
		name        string
		f           *File
		env         map[string]string
		o           Overrides
		wantCurrent string
		wantURL     string
		wantKey     string
		wantModel   string
	}{
		{"file only", file, map[string]string{"DS_KEY": "sk-ds"}, Overrides{}, "ds", "https://api.deepseek.com/v1", "sk-ds", "deepseek-flash"},
		{"env overrides file", file, map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-env", "HEARTH_MODEL": "m"}, Overrides{}, "env", "http://127.0.0.1:9/v1", "sk-env", "m"},
		{"env key only keeps base", file, map[string]string{"OPENAI_API_KEY": "sk-env"}, Overrides{}, "env", "https://api.deepseek.com/v1", "sk-env", "deepseek-flash"},
		{"key only, no file", &File{}, map[string]string{"OPENAI_API_KEY": "sk-env"}, Overrides{}, "env", DefaultBaseURL, "sk-env", "gpt-4o-mini"},
		{"flag source wins", file, map[string]string{"OPENAI_API_KEY": "sk-env"}, Overrides{Source: "local"}, "local", "http://127.0.0.1:11434/v1", "", "qwen3:8b"},
		{"HEARTH_MODEL", file, map[string]string{"HEARTH_MODEL": "deepseek-reasoner"}, Overrides{}, "ds", "https://api.deepseek.com/v1", "", "deepseek-reasoner"},
		{"--model beats HEARTH_MODEL", file, map[string]string{"HEARTH_MODEL": "a"}, Overrides{Model: "b"}, "ds", "https://api.deepseek.com/v1", "", "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Env = envOf(tt.env)
			list, current, err := tt.f.ResolveSources(tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if current != tt.wantCurrent {
				t.Fatalf("current %q, want %q", current, tt.wantCurrent)
			}
			for _, s := range list {
				if s.Name != current {
					continue
				}
				if s.BaseURL != tt.wantURL || s.APIKey != tt.wantKey || s.Model != tt.wantModel {
					t.Fatalf("source %+v, want %s %s %s", s, tt.wantURL, tt.wantKey, tt.wantModel)
				}
				return
			}
			t.Fatalf("current source %q not in %v", current, list)
		})
	}
	if _, _, err := file.ResolveSources(Overrides{Source: "nope", Env: envOf(nil)}); err == nil || !strings.Contains(err.Error(), "ds, local") {
		t.Fatalf("unknown --source: %v", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	f, err := Load(dir)
	if err != nil || len(f.Sources) != 0 {
		t.Fatalf("missing file: %+v %v", f, err)
	}
	bad := []string{
		`{"sources": {"x": {"base_url": "ftp://x"}}}`,
		`{"sources": {"x": {}}}`,
		`{"source": "y", "sources": {"x": {"base_url": "http://h/v1"}}}`,
		`{"modle": "typo"}`,
		`{`,
	}
	for _, b := range bad {
		t.Run(b, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, FileName), []byte(b), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), FileName) {
				t.Errorf("%s: err = %v", b, err)
			}
		})
	}
}

func TestDataDir(t *testing.T) {
	if d, _ := DataDir("", envOf(map[string]string{"HEARTH_HOME": "/tmp/hh"})); d != "/tmp/hh" {
		t.Fatal(d)
	}
	if d, _ := DataDir("/tmp/flag", envOf(map[string]string{"HEARTH_HOME": "/tmp/hh"})); d != "/tmp/flag" {
		t.Fatal(d)
	}
}

func TestSourceLimits(t *testing.T) {
	f, err := Parse("config.json", []byte(`{"source":"slow","sources":{
		"slow": {"base_url":"http://127.0.0.1:8000/v1","connect_timeout":"2s","first_byte_timeout":"10m",
			"idle_timeout":90,"answer_timeout":"15m","max_response_bytes":1048576},
		"fast": {"base_url":"http://127.0.0.1:9000/v1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := f.ResolveSources(Overrides{Env: envOf(map[string]string{"OPENAI_API_KEY": "sk-env", "HEARTH_MODEL": "m"})})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Source{ConnectTimeout: 2 * time.Second, FirstByteTimeout: 10 * time.Minute, IdleTimeout: 90 * time.Second,
		AnswerTimeout: 15 * time.Minute, MaxResponseBytes: 1 << 20}
	for _, s := range list {
		got := llm.Source{ConnectTimeout: s.ConnectTimeout, FirstByteTimeout: s.FirstByteTimeout, IdleTimeout: s.IdleTimeout,
			AnswerTimeout: s.AnswerTimeout, MaxResponseBytes: s.MaxResponseBytes}
		switch s.Name {
		case "slow", EnvSource: // env takes the limits of the source whose URL it uses
			if got != want {
				t.Errorf("%s: %+v, want %+v", s.Name, got, want)
			}
		case "fast":
			if got != (llm.Source{}) {
				t.Errorf("fast: %+v, want defaults", got)
			}
		}
	}
	for _, bad := range []string{`"idle_timeout":"soon"`, `"idle_timeout":"-1s"`, `"idle_timeout":true`, `"max_response_bytes":-1`} {
		t.Run(bad, func(t *testing.T) {
			_, err := Parse("config.json", []byte(`{"sources":{"a":{"base_url":"http://h/v1",`+bad+`}}}`))
			if err == nil {
				t.Errorf("%s accepted", bad)
			}
		})
	}
}

func TestPriceAndTraceDays(t *testing.T) {
	f, err := Parse("config.json", []byte(`{"trace_days":7,"sources":{
		"ds": {"base_url":"http://127.0.0.1:8000/v1","price":{"input":0.27,"output":1.1,"cached_input":0.07}},
		"qw": {"base_url":"http://127.0.0.1:9000/v1","price":{"input":0.8,"output":2,"currency":"CNY"}},
		"free": {"base_url":"http://127.0.0.1:7000/v1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := f.ResolveSources(Overrides{Env: envOf(nil), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*llm.Price{"ds": {Input: 0.27, Output: 1.1, CachedInput: 0.07}, "qw": {Input: 0.8, Output: 2, Currency: "CNY"}, "free": nil}
	for _, s := range list {
		if w := want[s.Name]; (w == nil) != (s.Price == nil) || (w != nil && !reflect.DeepEqual(*w, *s.Price)) {
			t.Errorf("%s: price %+v, want %+v", s.Name, s.Price, w)
		}
	}
	for _, c := range []struct {
		days int
		keep time.Duration
		on   bool
	}{{7, 7 * 24 * time.Hour, true}, {0, 30 * 24 * time.Hour, true}, {-1, 0, false}} {
		if keep, on := (&File{TraceDays: c.days}).TraceRetention(); keep != c.keep || on != c.on {
			t.Errorf("trace_days %d: %v, %v; want %v, %v", c.days, keep, on, c.keep, c.on)
		}
	}
	if _, err := Parse("config.json", []byte(`{"sources":{"a":{"base_url":"http://h/v1","price":{"input":-1}}}}`)); err == nil {
		t.Error("a negative price was accepted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"source":"a","sources":{"a":{"base_url":"http://h/v1"}}}`))
	f.Add([]byte(`{"trace_days":-1,"sources":{"a":{"base_url":"http://h/v1","price":{"input":1,"output":2,"currency":"CNY"}}}}`))
	f.Add([]byte(`{"sources":{"a":{"base_url":"http://h/v1","idle_timeout":"1m","first_byte_timeout":30}}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"fallback":["a"],"budgets":{"day":{"tokens":5,"money":{"amount":1,"currency":"CNY"}},"zone":"UTC"},"sources":{"a":{"base_url":"http://h/v1","price":{"input":1,"zone":"Asia/Shanghai","windows":[{"start":"22:00","end":"06:00","multiplier":0.5}]}}}}`))
	f.Add([]byte(`{"model":"m","sources":{"a":{"base_url":"http://h/v1"}}}`))
	f.Add([]byte(`{"plugins":{"time":{"enabled":false,"config":{"zone":"UTC"}}},"disabled_plugins":["x"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := Parse("config.json", b)
		if err != nil {
			return
		}
		for name := range cfg.Plugins {
			if cfg.BuiltinDisabled(name) && cfg.Plugins[name].Enabled != nil && *cfg.Plugins[name].Enabled {
				t.Fatalf("plugin %q both enabled and disabled", name)
			}
		}
		for _, s := range cfg.Sources {
			if s.Price != nil {
				if m := s.Price.Multiplier(time.Now()); m < 0 {
					t.Fatalf("a parsed price has a negative multiplier %v", m)
				}
			}
		}
		if _, _, err := cfg.ResolveSources(Overrides{Env: envOf(nil)}); err != nil && !errors.Is(err, ErrNoModel) {
			t.Fatalf("a parsed config failed to resolve: %v", err)
		}
	})
}

// OPENAI_BASE_URL on a server whose default model Hearth does not know,
// with no HEARTH_MODEL or --model, is refused like a source of
// config.json, saying which variable to set; a well-known host needs none.
func TestEnvSourceWithoutModelIsRefused(t *testing.T) {
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1", "OPENAI_API_KEY": "sk-env"}
	_, _, err := (&File{}).ResolveSources(Overrides{Env: envOf(env)})
	if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "HEARTH_MODEL") || !strings.Contains(err.Error(), "http://127.0.0.1:11434/v1") ||
		strings.Contains(err.Error(), "sk-env") {
		t.Fatalf("err = %v", err)
	}
	if _, _, err := (&File{}).ResolveSources(Overrides{Env: envOf(env), Model: "qwen3:8b"}); err != nil {
		t.Fatal(err)
	}
	env["OPENAI_BASE_URL"] = "https://api.deepseek.com/v1"
	if list, _, err := (&File{}).ResolveSources(Overrides{Env: envOf(env)}); err != nil || list[0].Model != "deepseek-flash" {
		t.Fatalf("%v %+v", err, list)
	}
}

// A source of config.json on a server whose default model Hearth does not
// know, with no model named anywhere, is refused at load, naming the
// source, so that no request goes out with "model": "".
func TestSourceWithoutModelIsRefused(t *testing.T) {
	f, err := Parse("config.json", []byte(`{"sources":{"local":{"base_url":"http://127.0.0.1:11434/v1"},
		"ds":{"base_url":"https://api.deepseek.com/v1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = f.ResolveSources(Overrides{Env: envOf(nil)})
	if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), `source "local" (http://127.0.0.1:11434/v1)`) ||
		!strings.Contains(err.Error(), `"model"`) || strings.Contains(err.Error(), `"ds"`) {
		t.Fatalf("err = %v", err)
	}
	for _, o := range []Overrides{{Model: "qwen3:8b", Env: envOf(nil)}, {Env: envOf(map[string]string{"HEARTH_MODEL": "qwen3:8b"})}} {
		list, _, err := f.ResolveSources(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list {
			if s.Model != "qwen3:8b" {
				t.Errorf("%s: model %q", s.Name, s.Model)
			}
		}
	}
}

func TestSourceAPI(t *testing.T) {
	f, err := Parse("config.json", []byte(`{"source":"claude","sources":{
		"claude": {"base_url":"https://api.anthropic.com","api":"anthropic","max_tokens":4096,"thinking_budget":2048,
			"price":{"input":3,"output":15,"cached_input":0.3,"cache_write":3.75}},
		"deepseek": {"base_url":"https://api.deepseek.com/v1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	list, current, err := f.ResolveSources(Overrides{Env: envOf(map[string]string{"OPENAI_API_KEY": "sk-ant-env"})})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]llm.Source{}
	for _, s := range list {
		got[s.Name] = s
	}
	c := got["claude"]
	if c.API != llm.APIAnthropic || c.MaxTokens != 4096 || c.ThinkingBudget != 2048 || c.Model != "claude-sonnet-4-5" || c.Price.CacheWrite != 3.75 {
		t.Errorf("claude: %+v", c)
	}
	if d := got["deepseek"]; d.API != "" || d.MaxTokens != 0 || d.ThinkingBudget != 0 {
		t.Errorf("deepseek: %+v", d)
	}
	// A key from the environment for the current source's address speaks
	// that source's wire.
	if e := got[EnvSource]; current != EnvSource || e.API != llm.APIAnthropic || e.BaseURL != c.BaseURL || e.ThinkingBudget != 2048 {
		t.Errorf("env (current %q): %+v", current, e)
	}
	for _, bad := range []string{`"api":"claude"`, `"api":"anthropic","thinking_budget":100`, `"thinking_budget":2048`,
		`"api":"anthropic","max_tokens":-1`, `"price":{"input":1,"output":1,"cache_write":-1}`} {
		t.Run(bad, func(t *testing.T) {
			if _, err := Parse("config.json", []byte(`{"sources":{"a":{"base_url":"http://h/v1",`+bad+`}}}`)); err == nil {
				t.Errorf("%s accepted", bad)
			}
		})
	}
}
