// Package config reads Hearth's configuration: the config.json file in the
// data directory, overridden by environment variables and flags.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
)

// FileName is the config file's name inside the data directory.
const FileName = "config.json"

// File is the content of config.json.
type File struct {
	// Source names the model source used at start; empty picks the first.
	Source string `json:"source,omitempty"`
	// Sources are the named model endpoints.
	Sources map[string]SourceConfig `json:"sources,omitempty"`
	// Model overrides every source's model.
	Model string `json:"model,omitempty"`
	// SystemPrompt replaces the default system prompt.
	SystemPrompt string `json:"system_prompt,omitempty"`
	// MaxSteps caps model calls per turn (default 20).
	MaxSteps int `json:"max_steps,omitempty"`
	// MaxToolCalls caps tool calls per turn (default 64).
	MaxToolCalls int `json:"max_tool_calls,omitempty"`
	// HistoryMessages is how many past messages are sent (default 60).
	HistoryMessages int `json:"history_messages,omitempty"`
	// MaxInjectionsPerMinute caps the messages one plugin may inject a
	// minute, in bursts of up to as many (default 10).
	MaxInjectionsPerMinute int `json:"max_injections_per_minute,omitempty"`
	// TraceDays is how many days turn traces are kept (default 30); a
	// negative number keeps none: turns are not traced at all.
	TraceDays int `json:"trace_days,omitempty"`
	// DisabledPlugins are built-in plugins not to load.
	DisabledPlugins []string `json:"disabled_plugins,omitempty"`
	// Plugins configure the plugins compiled into this Hearth, by name:
	// whether each loads, and the config map its factory gets. Plugin
	// folders take settings instead (hearth settings).
	Plugins map[string]BuiltinPlugin `json:"plugins,omitempty"`
	// Serve is `hearth serve`'s settings; its flags win over them.
	Serve *ServeConfig `json:"serve,omitempty"`
	// MCPServers are the MCP servers whose tools the agent gets, by name;
	// each runs as the plugin mcp-<name>. The key is the one Claude
	// Desktop, Cursor and Claude Code use, so an entry from a server's
	// README can be pasted as it is.
	MCPServers map[string]MCPServer `json:"mcpServers,omitempty"`
	// Memory says how the agent uses its memory by itself (memory.go).
	Memory *MemoryConfig `json:"memory,omitempty"`
	// Fallback names the sources tried, in order, when the current one
	// fails before its answer begins (llm.Sources.SetFallback).
	Fallback []string `json:"fallback,omitempty"`
	// Budgets cap what model calls spend per day and per session,
	// checked before each call (llm.Budgets).
	Budgets *llm.Budgets `json:"budgets,omitempty"`
	// Speech transcribes voice notes before the turn (speech.go).
	Speech *SpeechConfig `json:"speech,omitempty"`
	// OCR reads the images of a message for a model that cannot see
	// them (speech.go).
	OCR *OCRConfig `json:"ocr,omitempty"`
}

// MCPServer is one entry of config.json's "mcpServers": a command to run
// (stdio) or a URL (Streamable HTTP, or the legacy SSE transport).
type MCPServer struct {
	// Type is "stdio", "http" (Streamable HTTP, falling back to the
	// legacy SSE transport when the server answers as one) or "sse";
	// empty means stdio with a command, http with a URL.
	Type string `json:"type,omitempty"`
	// Command and Args start a stdio server.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Env is what the server's process gets beyond a minimal base (PATH,
	// HOME, LANG and the like): never Hearth's own environment. "${NAME}"
	// in a value is the host's variable NAME, so a key can stay out of
	// the file.
	Env map[string]string `json:"env,omitempty"`
	// Cwd is the process's working directory (default: its data folder).
	Cwd string `json:"cwd,omitempty"`
	// URL is a remote server's endpoint.
	URL string `json:"url,omitempty"`
	// Headers are sent with every request to URL ("${NAME}" expanded as in
	// Env): a static "Authorization: Bearer ..." works.
	Headers map[string]string `json:"headers,omitempty"`
	// Disabled keeps the server configured but not started.
	Disabled bool `json:"disabled,omitempty"`
	// Timeout is one tool call's deadline (default 60s).
	Timeout Duration `json:"timeout,omitempty"`
	// OAuth configures the authorization flow for a remote server that
	// asks for it; without it, a client is registered dynamically.
	OAuth *MCPOAuth `json:"oauth,omitempty"`
}

// MCPOAuth is a remote MCP server's OAuth client configuration.
type MCPOAuth struct {
	// ClientID (and ClientSecret for a confidential client) name a client
	// registered beforehand; empty means dynamic client registration.
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	// Scopes asked for; empty means those the server advertises.
	Scopes []string `json:"scopes,omitempty"`
}

// ServeConfig is config.json's "serve" section, for `hearth serve`.
type ServeConfig struct {
	// Listen is the address to listen on, host:port (default
	// 127.0.0.1:8420).
	Listen string `json:"listen,omitempty"`
	// LogLevel is what the daemon logs to stderr: debug, info, warn or
	// error (default info); hearth.log always gets info.
	LogLevel string `json:"log_level,omitempty"`
	// TLSCert and TLSKey are PEM files; with both, the daemon serves HTTPS.
	TLSCert string `json:"tls_cert,omitempty"`
	TLSKey  string `json:"tls_key,omitempty"`
	// Hosts are the host names the daemon is reached by besides the
	// loopback ones; "*" accepts any (behind a reverse proxy that checks).
	Hosts []string `json:"hosts,omitempty"`
	// ShutdownGrace is how long a shutdown lets requests in flight finish
	// before it cancels them (default 10s).
	ShutdownGrace Duration `json:"shutdown_grace,omitempty"`
}

// SourceConfig is one model endpoint in config.json. The key may be given
// directly or, better, as the name of an environment variable holding it.
type SourceConfig struct {
	BaseURL   string `json:"base_url"`
	APIKey    string `json:"api_key,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
	Model     string `json:"model,omitempty"`
	// ContextWindow is the model's context window in tokens; 0 means the
	// default Hearth knows for the model name.
	ContextWindow int `json:"context_window,omitempty"`
	// Price is what the model costs per million tokens, for the cost shown
	// in turn traces; nil means Hearth's built-in price of the model, if
	// it knows one.
	Price *llm.Price `json:"price,omitempty"`
	// Images says whether the model accepts images in its input (tools'
	// images are then passed to it); unset means Hearth decides from the
	// model's name (llm.ModelAcceptsImages).
	Images *bool `json:"images,omitempty"`
	// API is the wire format the source speaks: "openai" (chat
	// completions, the default) or "anthropic" (the Messages API).
	API string `json:"api,omitempty"`
	// MaxTokens caps one answer on the Anthropic wire, which needs a cap
	// (default 8192, on top of the thinking budget).
	MaxTokens int `json:"max_tokens,omitempty"`
	// ThinkingBudget turns on Anthropic's extended thinking with that
	// many tokens (at least 1024); unset leaves it off.
	ThinkingBudget int `json:"thinking_budget,omitempty"`

	// How long to wait for the provider; zero means the default.
	ConnectTimeout   Duration `json:"connect_timeout,omitempty"`    // connecting, TLS included (10s)
	FirstByteTimeout Duration `json:"first_byte_timeout,omitempty"` // from the request to the answer's first byte (120s)
	IdleTimeout      Duration `json:"idle_timeout,omitempty"`       // between two pieces of an answer (60s)
	AnswerTimeout    Duration `json:"answer_timeout,omitempty"`     // one whole answer, retries included (10m)
	// MaxResponseBytes caps one answer's text, reasoning and tool call
	// arguments together (4 MiB).
	MaxResponseBytes int64 `json:"max_response_bytes,omitempty"`
}

// Duration is a duration in config.json: a string such as "90s" or
// "2m", or a number of seconds.
type Duration time.Duration

// UnmarshalJSON reads "90s" or 90.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	var dur time.Duration
	switch x := v.(type) {
	case string:
		var err error
		if dur, err = time.ParseDuration(x); err != nil {
			return fmt.Errorf("duration %q: write it like \"90s\" or \"2m\"", x)
		}
	case float64:
		if x > float64(math.MaxInt64/int64(time.Second)) {
			return fmt.Errorf("duration %v seconds is too long", x)
		}
		dur = time.Duration(x * float64(time.Second))
	default:
		return fmt.Errorf("duration %s: write it like \"90s\" or a number of seconds", b)
	}
	if dur < 0 {
		return fmt.Errorf("duration %s is negative", b)
	}
	*d = Duration(dur)
	return nil
}

// MarshalJSON writes the duration as a string such as "1m30s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Load reads config.json from dir. A missing file is an empty config; a
// malformed one is an error naming the file and the problem.
func Load(dir string) (*File, error) {
	path := filepath.Join(dir, FileName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &File{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return Parse(path, b)
}

// Parse decodes a config file's content; unknown fields are errors, so a
// typo does not silently do nothing.
func Parse(path string, b []byte) (*File, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		if entry := mcpEntryError(b); entry != nil {
			return nil, fmt.Errorf("%s: %w", path, entry)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for name, s := range f.Sources {
		if name == "" {
			return nil, fmt.Errorf("%s: a source has an empty name", path)
		}
		if s.BaseURL == "" {
			return nil, fmt.Errorf("%s: source %q has no base_url", path, name)
		}
		if u, err := url.Parse(s.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s: source %q: base_url %q is not an http(s) URL", path, name, s.BaseURL)
		}
		if s.MaxResponseBytes < 0 {
			return nil, fmt.Errorf("%s: source %q: max_response_bytes is negative", path, name)
		}
		if err := llm.CheckAPI(s.API); err != nil {
			return nil, fmt.Errorf("%s: source %q: %w", path, name, err)
		}
		if s.MaxTokens < 0 {
			return nil, fmt.Errorf("%s: source %q: max_tokens is negative", path, name)
		}
		if s.ThinkingBudget != 0 && (s.ThinkingBudget < llm.MinThinkingBudget || s.API != llm.APIAnthropic) {
			return nil, fmt.Errorf("%s: source %q: thinking_budget is for \"api\": \"anthropic\" sources, at least %d tokens",
				path, name, llm.MinThinkingBudget)
		}
		if p := s.Price; p != nil {
			if err := p.Check(); err != nil {
				return nil, fmt.Errorf("%s: source %q: price: %w", path, name, err)
			}
		}
	}
	if err := validateBuiltins(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Source != "" {
		if _, ok := f.Sources[f.Source]; !ok {
			return nil, fmt.Errorf("%s: source %q is not among the sources", path, f.Source)
		}
	}
	if err := validateMCPServers(path, &f); err != nil {
		return nil, err
	}
	for _, n := range f.Fallback {
		if _, ok := f.Sources[n]; !ok && n != EnvSource {
			return nil, fmt.Errorf("%s: fallback: source %q is not among the sources", path, n)
		}
	}
	if err := f.Budgets.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	noEnv := func(string) string { return "" } // keys are not needed to check the shape
	if _, err := f.ResolveSpeech(noEnv); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, _, _, _, err := f.SpeechProvider(noEnv); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := f.ResolveOCR(noEnv); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, _, _, _, err := f.OCRProvider(noEnv); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// DefaultTraceDays is how long turn traces are kept when config.json
// does not say.
const DefaultTraceDays = 30

// TraceRetention returns how long turn traces are kept, and false when
// trace_days is negative: no turn is traced.
func (f *File) TraceRetention() (time.Duration, bool) {
	switch {
	case f.TraceDays < 0:
		return 0, false
	case f.TraceDays == 0:
		return DefaultTraceDays * 24 * time.Hour, true
	}
	return time.Duration(f.TraceDays) * 24 * time.Hour, true
}

// Overrides are the values given outside the file.
type Overrides struct {
	Env    func(string) string // environment lookup; nil means os.Getenv
	Model  string              // --model
	Source string              // --source
}

// EnvSource is the name of the source built from OPENAI_BASE_URL and
// OPENAI_API_KEY.
const EnvSource = "env"

// DefaultBaseURL is used when only OPENAI_API_KEY is set.
const DefaultBaseURL = "https://api.openai.com/v1"

// ResolveSources resolves the model sources and the current one. Precedence:
// --source picks among sources; otherwise OPENAI_BASE_URL / OPENAI_API_KEY,
// when set, define the source "env" (missing parts taken from the file's
// current source) and make it current; otherwise the file's source. The
// model: --model, then HEARTH_MODEL, then the file's top-level model, then
// the source's own, then a default known for the provider's host.
func (f *File) ResolveSources(o Overrides) ([]llm.Source, string, error) {
	getenv := o.Env
	if getenv == nil {
		getenv = os.Getenv
	}
	var list []llm.Source
	names := make([]string, 0, len(f.Sources))
	for n := range f.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sc := f.Sources[n]
		key := sc.APIKey
		if sc.APIKeyEnv != "" {
			key = getenv(sc.APIKeyEnv)
		}
		list = append(list, llm.Source{Name: n, BaseURL: sc.BaseURL, APIKey: key, Model: sc.Model, ContextWindow: sc.ContextWindow, Price: sc.Price, Images: sc.Images,
			API: sc.API, MaxTokens: sc.MaxTokens, ThinkingBudget: sc.ThinkingBudget,
			ConnectTimeout: time.Duration(sc.ConnectTimeout), FirstByteTimeout: time.Duration(sc.FirstByteTimeout),
			IdleTimeout: time.Duration(sc.IdleTimeout), AnswerTimeout: time.Duration(sc.AnswerTimeout),
			MaxResponseBytes: sc.MaxResponseBytes})
	}
	current := f.Source
	if current == "" && len(names) > 0 {
		current = names[0]
	}

	envURL, envKey := getenv("OPENAI_BASE_URL"), getenv("OPENAI_API_KEY")
	if envURL != "" || envKey != "" {
		env := llm.Source{Name: EnvSource, BaseURL: envURL, APIKey: envKey}
		for _, s := range list {
			if s.Name == current {
				if env.BaseURL == "" {
					env.BaseURL, env.Model, env.ContextWindow = s.BaseURL, s.Model, s.ContextWindow
				}
				if env.BaseURL == s.BaseURL {
					if env.APIKey == "" {
						env.APIKey = s.APIKey
					}
					env.ConnectTimeout, env.FirstByteTimeout, env.IdleTimeout = s.ConnectTimeout, s.FirstByteTimeout, s.IdleTimeout
					env.AnswerTimeout = s.AnswerTimeout
					env.MaxResponseBytes = s.MaxResponseBytes
					env.API, env.MaxTokens, env.ThinkingBudget = s.API, s.MaxTokens, s.ThinkingBudget
				}
			}
		}
		if env.BaseURL == "" {
			env.BaseURL = DefaultBaseURL
		}
		list = append(removeSource(list, EnvSource), env)
		current = EnvSource
	}
	if o.Source != "" {
		found := false
		for _, s := range list {
			found = found || s.Name == o.Source
		}
		if !found {
			return nil, "", fmt.Errorf("unknown model source %q (have: %s)", o.Source, strings.Join(sourceNames(list), ", "))
		}
		current = o.Source
	}
	model := o.Model
	if model == "" {
		model = getenv("HEARTH_MODEL")
	}
	if model == "" {
		model = f.Model
	}
	for i := range list {
		if model != "" {
			list[i].Model = model
		} else if list[i].Model == "" {
			list[i].Model = GuessModel(list[i].BaseURL)
		}
		// A request with "model": "" fails at the provider, which then
		// blames the model; say what is missing before any is sent.
		switch {
		case list[i].Model != "":
		case list[i].Name == EnvSource:
			return nil, "", fmt.Errorf("OPENAI_BASE_URL %s: %w: Hearth knows no default model for that server; "+
				"set HEARTH_MODEL (or pass --model)\n"+
				"OPENAI_BASE_URL（%s）没有指定模型：请设置 HEARTH_MODEL，或使用 --model",
				list[i].BaseURL, ErrNoModel, list[i].BaseURL)
		default:
			return nil, "", fmt.Errorf("source %q (%s): %w: Hearth knows no default model for that server; "+
				"add \"model\": \"NAME\" to the source in config.json (or set HEARTH_MODEL, or pass --model)\n"+
				"模型源 %q（%s）没有指定模型：请在 config.json 的该模型源中加入 \"model\"，或设置 HEARTH_MODEL，或使用 --model",
				list[i].Name, list[i].BaseURL, ErrNoModel, list[i].Name, list[i].BaseURL)
		}
	}
	return list, current, nil
}

// ErrNoModel is returned by ResolveSources for a source (of config.json,
// or "env" from OPENAI_BASE_URL) that names no model on a server whose
// default Hearth does not know.
var ErrNoModel = errors.New("no model")

func removeSource(list []llm.Source, name string) []llm.Source {
	out := list[:0]
	for _, s := range list {
		if s.Name != name {
			out = append(out, s)
		}
	}
	return out
}

func sourceNames(list []llm.Source) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name)
	}
	return out
}

// knownModels maps provider hosts to a sensible default model, so a user
// who only sets the base URL and key gets a working chat.
var knownModels = map[string]string{
	"api.deepseek.com":            "deepseek-flash",
	"api.openai.com":              "gpt-4o-mini",
	"dashscope.aliyuncs.com":      "qwen-plus",
	"dashscope-intl.aliyuncs.com": "qwen-plus",
	"api.moonshot.cn":             "moonshot-v1-8k",
	"api.moonshot.ai":             "moonshot-v1-8k",
	"open.bigmodel.cn":            "glm-4-flash",
	"api.siliconflow.cn":          "Qwen/Qwen2.5-7B-Instruct",
	"api.anthropic.com":           "claude-sonnet-4-5",
}

// GuessModel returns the default model for a provider's base URL, or ""
// when the host is not known (a local Ollama or vLLM must be told).
func GuessModel(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return knownModels[u.Hostname()]
}

// DataDir resolves the data directory: the flag, then HEARTH_HOME, then
// ~/.hearth.
func DataDir(flag string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if flag != "" {
		return filepath.Abs(flag)
	}
	if d := getenv("HEARTH_HOME"); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the home directory (set HEARTH_HOME or --data-dir): %w", err)
	}
	return filepath.Join(home, ".hearth"), nil
}
