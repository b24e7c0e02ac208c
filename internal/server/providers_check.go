package server

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/llm"
)

// Limits of PUT /v1/providers/{name}'s fields.
const (
	maxModelLen         = 200
	minContextWindow    = 1024
	maxContextWindow    = 10_000_000
	reservedPresetsName = "presets" // GET /v1/providers/presets is the list
)

var (
	providerNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	// envNameRE is the variables the API lets a source read its key
	// from: names ending in _API_KEY, so that a source cannot be pointed
	// at any other secret of the daemon's environment (GITHUB_TOKEN) and
	// send it to its address. config.json written by hand names any.
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,119}_API_KEY$`)
)

// Field errors of PUT /v1/providers/{name} that tests and docs quote.
const (
	msgKeyForNewOrigin = "enter the key again for the new address / 新地址需要重新输入密钥"
	msgEnvName         = "the name of an environment variable ending in _API_KEY (such as DEEPSEEK_API_KEY): letters, digits and '_'"
)

// checkProviderUpdate applies u to source name's config (old, when it
// exists) and checks every field. It returns the new config, or what is
// wrong with each field, by the field's JSON name ("name" for the path).
func checkProviderUpdate(name string, exists bool, old config.SourceConfig, u ProviderUpdate) (config.SourceConfig, map[string]string) {
	fields := map[string]string{}
	sc := config.SourceConfig{}
	if exists {
		sc = old
	}
	switch {
	case name == config.EnvSource:
		fields["name"] = `the source "env" comes from OPENAI_BASE_URL and OPENAI_API_KEY; save this one under another name`
	case name == reservedPresetsName:
		fields["name"] = `"presets" is reserved; choose another name`
	case !exists && !providerNameRE.MatchString(name):
		fields["name"] = "use 1 to 64 letters, digits, '-', '_' or '.', starting with a letter or digit"
	}
	if u.BaseURL != nil {
		sc.BaseURL = strings.TrimSpace(*u.BaseURL)
		if err := config.CheckBaseURL(sc.BaseURL); err != nil {
			fields["base_url"] = err.Error()
		}
	} else if sc.BaseURL == "" {
		fields["base_url"] = "required for a new source: the provider's OpenAI-compatible address, usually ending in /v1"
	}
	if u.Model != nil {
		sc.Model = strings.TrimSpace(*u.Model)
		if msg := checkText(sc.Model, maxModelLen); msg != "" {
			fields["model"] = msg
		}
	}
	if _, bad := fields["base_url"]; !bad && sc.Model == "" && config.GuessModel(sc.BaseURL) == "" {
		if _, bad := fields["model"]; !bad {
			fields["model"] = "required: Hearth knows no default model for this address (for Ollama, the name you pulled, such as qwen3:8b)"
		}
	}
	if u.APIKey != nil && u.APIKeyEnv != nil && *u.APIKey != "" && *u.APIKeyEnv != "" {
		fields["api_key"] = "give the key or the name of the variable holding it, not both"
		fields["api_key_env"] = fields["api_key"]
	}
	if u.APIKey != nil {
		sc.APIKey = strings.TrimSpace(*u.APIKey)
		if err := config.CheckAPIKey(sc.APIKey); err != nil {
			fields["api_key"] = err.Error()
		} else if sc.APIKey != "" {
			sc.APIKeyEnv = ""
		}
	}
	if u.APIKeyEnv != nil {
		sc.APIKeyEnv = strings.TrimSpace(*u.APIKeyEnv)
		switch {
		case sc.APIKeyEnv != "" && !envNameRE.MatchString(sc.APIKeyEnv):
			fields["api_key_env"] = msgEnvName
		case sc.APIKeyEnv != "" && (u.APIKey == nil || *u.APIKey == ""):
			sc.APIKey = ""
		}
	}
	// The stored key was given for the old address: a source moved to
	// another origin keeps no key unless this request gives one (or says
	// which variable holds it), so that whoever can change the address
	// cannot have the key sent there.
	given := (u.APIKey != nil && strings.TrimSpace(*u.APIKey) != "") || (u.APIKeyEnv != nil && strings.TrimSpace(*u.APIKeyEnv) != "")
	if exists && !given && (sc.APIKey != "" || sc.APIKeyEnv != "") && !sameProviderOrigin(old.BaseURL, sc.BaseURL) {
		if _, bad := fields["base_url"]; !bad {
			fields["api_key"] = msgKeyForNewOrigin
		}
	}
	if u.API == nil && !exists {
		sc.API = config.PresetAPI(sc.BaseURL)
	}
	if u.API != nil {
		sc.API = strings.TrimSpace(*u.API)
		if sc.API == llm.APIOpenAI {
			sc.API = ""
		}
		if err := llm.CheckAPI(sc.API); err != nil {
			fields["api"] = err.Error()
		} else if sc.API != llm.APIAnthropic {
			sc.ThinkingBudget = 0 // Anthropic's alone; the file would be refused
		}
	}
	if u.ContextWindow != nil {
		sc.ContextWindow = *u.ContextWindow
		if w := sc.ContextWindow; w != 0 && (w < minContextWindow || w > maxContextWindow) {
			fields["context_window"] = fmt.Sprintf("0 (the model's default) or %d to %d tokens", minContextWindow, maxContextWindow)
		}
	}
	return sc, fields
}

// sameProviderOrigin reports whether two provider addresses have the
// same scheme, host and port (the scheme's default port when none is
// given).
func sameProviderOrigin(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Hostname(), ub.Hostname()) && originPort(ua) == originPort(ub)
}

// originPort is u's port, or its scheme's default.
func originPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// checkText says what is wrong with a one-line name, or "".
func checkText(s string, max int) string {
	if len(s) > max {
		return fmt.Sprintf("at most %d characters", max)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
			return "printable text on one line"
		}
	}
	return ""
}
