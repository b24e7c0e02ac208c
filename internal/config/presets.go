package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/hearth-agent/hearth/internal/llm"
)

// Preset is a well-known provider that the onboarding offers, in the web
// UI and in the terminal: what to fill in for it, its wire format, and
// where its keys are made.
type Preset struct {
	// Name is the source name suggested for it.
	Name    string
	Label   string
	LabelZH string
	BaseURL string
	// Model is the default model; empty for a local server, whose models
	// are whatever the user pulled (ModelHint is an example).
	Model     string
	ModelHint string
	// NeedsKey is false for local servers, which take any key or none.
	NeedsKey bool
	// KeyURL is the page where the provider's API keys are made.
	KeyURL string
	// API is the wire format (SourceConfig.API): "" for OpenAI's chat
	// completions, "anthropic" for Anthropic's Messages API.
	API string
}

// Presets returns the well-known providers, in the order they are
// offered. Models of hosted ones come from GuessModel, so a source that
// names no model gets the same one.
func Presets() []Preset {
	return []Preset{
		hosted("deepseek", "DeepSeek", "深度求索 DeepSeek", "https://api.deepseek.com/v1", "https://platform.deepseek.com/api_keys"),
		hosted("qwen", "Qwen (Alibaba Cloud DashScope)", "通义千问（阿里云百炼）", "https://dashscope.aliyuncs.com/compatible-mode/v1",
			"https://bailian.console.aliyun.com/?apiKey=1"),
		hosted("kimi", "Kimi (Moonshot AI)", "Kimi（月之暗面）", "https://api.moonshot.cn/v1", "https://platform.moonshot.cn/console/api-keys"),
		hosted("glm", "GLM (Zhipu AI)", "智谱 GLM", "https://open.bigmodel.cn/api/paas/v4", "https://open.bigmodel.cn/usercenter/apikeys"),
		hosted("siliconflow", "SiliconFlow", "硅基流动 SiliconFlow", "https://api.siliconflow.cn/v1", "https://cloud.siliconflow.cn/account/ak"),
		hosted("openai", "OpenAI", "OpenAI", DefaultBaseURL, "https://platform.openai.com/api-keys"),
		anthropic(),
		{Name: "ollama", Label: "Ollama (local)", LabelZH: "Ollama（本机）", BaseURL: "http://127.0.0.1:11434/v1", ModelHint: "qwen3:8b"},
		{Name: "vllm", Label: "vLLM (local)", LabelZH: "vLLM（本机）", BaseURL: "http://127.0.0.1:8000/v1", ModelHint: "Qwen/Qwen3-8B"},
	}
}

// PresetAPI returns the wire format of the preset whose base URL has
// baseURL's host, "" (OpenAI's) when none has: a new source saved with
// a preset's address and no "api" speaks the preset's wire.
func PresetAPI(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return ""
	}
	for _, p := range Presets() {
		if pu, err := url.Parse(p.BaseURL); err == nil && strings.EqualFold(pu.Host, u.Host) {
			return p.API
		}
	}
	return ""
}

// AnthropicBaseURL is the root of Anthropic's API.
const AnthropicBaseURL = "https://api.anthropic.com"

func anthropic() Preset {
	p := hosted("anthropic", "Anthropic (Claude)", "Anthropic（Claude）", AnthropicBaseURL, "https://console.anthropic.com/settings/keys")
	p.API = llm.APIAnthropic
	return p
}

func hosted(name, label, labelZH, baseURL, keyURL string) Preset {
	return Preset{Name: name, Label: label, LabelZH: labelZH, BaseURL: baseURL, Model: GuessModel(baseURL),
		NeedsKey: true, KeyURL: keyURL}
}

// CheckBaseURL says what is wrong with a provider address typed by a
// user (the web UI's onboarding, hearth's first run), in words for that
// user; nil when it is an OpenAI-compatible base address.
func CheckBaseURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return errors.New("required: the provider's OpenAI-compatible address, usually ending in /v1")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return errors.New("an http:// or https:// address, such as https://api.deepseek.com/v1")
	case u.User != nil:
		return errors.New("no user name or password in the address: put the key in api_key")
	case u.RawQuery != "" || u.Fragment != "":
		return errors.New("no query or fragment: the address is the API's base, such as https://api.deepseek.com/v1")
	case strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/chat/completions"):
		return errors.New("the base address without /chat/completions (Hearth adds it)")
	case len(s) > 2048:
		return errors.New("at most 2048 characters")
	}
	return nil
}

// MaxAPIKeyLen is the longest API key the onboarding accepts.
const MaxAPIKeyLen = 4096

// CheckAPIKey says what is wrong with an API key typed or pasted by a
// user, in words for that user; nil when it can be one. The message
// never contains the key.
func CheckAPIKey(key string) error {
	switch {
	case len(key) > MaxAPIKeyLen:
		return fmt.Errorf("at most %d characters", MaxAPIKeyLen)
	case strings.IndexFunc(key, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0:
		return errors.New("a key has no spaces, line breaks or non-ASCII characters: paste it again")
	}
	return nil
}
