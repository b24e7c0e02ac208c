package server

import (
	"net/http"

	"github.com/hearth-agent/hearth/internal/config"
)

// ProviderPreset is a well-known OpenAI-compatible provider the onboarding
// offers: what to fill in for it, and where its keys are made.
type ProviderPreset struct {
	// Name is the source name suggested for it (PUT /v1/providers/{name}).
	Name    string `json:"name"`
	Label   string `json:"label"`
	LabelZH string `json:"label_zh"`
	BaseURL string `json:"base_url"`
	// Model is the default model; empty for a local server, whose models
	// are whatever the user pulled (ModelHint is an example).
	Model     string `json:"model"`
	ModelHint string `json:"model_hint,omitempty"`
	// NeedsKey is false for local servers, which take any key or none.
	NeedsKey bool `json:"needs_key"`
	// KeyURL is the page where the provider's API keys are made.
	KeyURL string `json:"key_url,omitempty"`
}

// PresetList is GET /v1/providers/presets' answer.
type PresetList struct {
	Presets []ProviderPreset `json:"presets"`
}

// presets are the well-known providers, in the order they are offered.
// Models of hosted ones come from config.GuessModel, so a source that
// names no model gets the same one.
var presets = []ProviderPreset{
	hosted("deepseek", "DeepSeek", "深度求索 DeepSeek", "https://api.deepseek.com/v1", "https://platform.deepseek.com/api_keys"),
	hosted("qwen", "Qwen (Alibaba Cloud DashScope)", "通义千问（阿里云百炼）", "https://dashscope.aliyuncs.com/compatible-mode/v1",
		"https://bailian.console.aliyun.com/?apiKey=1"),
	hosted("kimi", "Kimi (Moonshot AI)", "Kimi（月之暗面）", "https://api.moonshot.cn/v1", "https://platform.moonshot.cn/console/api-keys"),
	hosted("glm", "GLM (Zhipu AI)", "智谱 GLM", "https://open.bigmodel.cn/api/paas/v4", "https://open.bigmodel.cn/usercenter/apikeys"),
	hosted("siliconflow", "SiliconFlow", "硅基流动 SiliconFlow", "https://api.siliconflow.cn/v1", "https://cloud.siliconflow.cn/account/ak"),
	hosted("openai", "OpenAI", "OpenAI", config.DefaultBaseURL, "https://platform.openai.com/api-keys"),
	{Name: "ollama", Label: "Ollama (local)", LabelZH: "Ollama（本机）", BaseURL: "http://127.0.0.1:11434/v1", ModelHint: "qwen3:8b"},
	{Name: "vllm", Label: "vLLM (local)", LabelZH: "vLLM（本机）", BaseURL: "http://127.0.0.1:8000/v1", ModelHint: "Qwen/Qwen3-8B"},
}

func hosted(name, label, labelZH, baseURL, keyURL string) ProviderPreset {
	return ProviderPreset{Name: name, Label: label, LabelZH: labelZH, BaseURL: baseURL, Model: config.GuessModel(baseURL),
		NeedsKey: true, KeyURL: keyURL}
}

func (s *Server) listPresets(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, PresetList{Presets: presets})
}
