package config

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/media"
)

// SpeechConfig is config.json's "speech": the OpenAI-compatible
// transcription endpoint that voice notes arriving on a channel are
// transcribed with before the turn (internal/media).
type SpeechConfig struct {
	// Provider, when set, is a PKU plugin's speech provider
	// ("<plugin>.<key>") whose transcribe Hearth runs over the protocol,
	// with base_url and model (empty: the provider's defaults) and the
	// key below; stream and response_format are the plugin's business.
	Provider string `json:"provider,omitempty"`
	// BaseURL is the API root (…/v1); empty takes credential_from's.
	BaseURL string `json:"base_url,omitempty"`
	// APIKey or APIKeyEnv (an environment variable holding it) is the
	// key; CredentialFrom names a source of "sources" whose key is used
	// instead (a provider whose chat and speech share one key).
	APIKey         string `json:"api_key,omitempty"`
	APIKeyEnv      string `json:"api_key_env,omitempty"`
	CredentialFrom string `json:"credential_from,omitempty"`
	// Model is the transcription model (e.g. whisper-1).
	Model string `json:"model,omitempty"`
	// Language is an ISO-639-1 hint; empty lets the server detect it.
	Language string `json:"language,omitempty"`
	// ResponseFormat is json (default), text or verbose_json.
	ResponseFormat string `json:"response_format,omitempty"`
	// Stream asks for server-sent events (gpt-4o-transcribe).
	Stream bool `json:"stream,omitempty"`
	// MaxBytes caps one voice note (default 25 MiB).
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// Timeout caps one transcription (default 2m).
	Timeout Duration `json:"timeout,omitempty"`
}

// OCRConfig is config.json's "ocr": an OpenAI-compatible vision model
// that reads the images of a message into Markdown ("## Page n" per
// image) for a model that cannot see images.
type OCRConfig struct {
	// Provider, when set, is a PKU plugin's OCR provider
	// ("<plugin>.<key>") whose recognize Hearth runs over the protocol,
	// one image at a time, with credential_from's base URL and key.
	Provider       string `json:"provider,omitempty"`
	BaseURL        string `json:"base_url,omitempty"`
	APIKey         string `json:"api_key,omitempty"`
	APIKeyEnv      string `json:"api_key_env,omitempty"`
	CredentialFrom string `json:"credential_from,omitempty"`
	// Model is the vision model (required without provider).
	Model string `json:"model,omitempty"`
	// MaxPages caps the images read of one message (default 50).
	MaxPages int `json:"max_pages,omitempty"`
	// Timeout caps one image's request (default 2m).
	Timeout Duration `json:"timeout,omitempty"`
}

// credential resolves a base URL and key: the entry's own, else the
// source credentialFrom names. A plugin's provider (plugin true) has a
// base URL of its own, so it takes only the source's key.
func (f *File) credential(what, baseURL, key, keyEnv, from string, plugin bool, getenv func(string) string) (string, string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if keyEnv != "" {
		key = getenv(keyEnv)
	}
	if from != "" {
		src, ok := f.Sources[from]
		if !ok {
			return "", "", fmt.Errorf("%s: credential_from %q is not a source of \"sources\" (have: %s)", what, from, sortedSourceNames(f.Sources))
		}
		if key == "" {
			key = src.APIKey
			if src.APIKeyEnv != "" {
				key = getenv(src.APIKeyEnv)
			}
		}
		if baseURL == "" && !plugin {
			baseURL = src.BaseURL
		}
	}
	if baseURL == "" && !plugin {
		return "", "", fmt.Errorf("%s: no base_url (set it, or credential_from a source)", what)
	}
	return baseURL, key, nil
}

// SpeechProvider returns, for a "speech" naming a plugin's provider, the
// provider id, the base URL (empty: the provider's default) and the key;
// ok is false when "speech" names none.
func (f *File) SpeechProvider(getenv func(string) string) (id, baseURL, key string, ok bool, err error) {
	s := f.Speech
	if s == nil || s.Provider == "" {
		return "", "", "", false, nil
	}
	if plugin, k, cut := strings.Cut(s.Provider, "."); !cut || plugin == "" || k == "" {
		return "", "", "", false, fmt.Errorf("speech: provider %q is not <plugin>.<key>", s.Provider)
	}
	base, key, err := f.credential("speech", s.BaseURL, s.APIKey, s.APIKeyEnv, s.CredentialFrom, true, getenv)
	if err != nil {
		return "", "", "", false, err
	}
	return s.Provider, base, key, true, nil
}

// ResolveSpeech returns the speech client config.json configures, or nil
// when it has no "speech" or one naming a plugin's provider
// (SpeechProvider).
func (f *File) ResolveSpeech(getenv func(string) string) (*media.Speech, error) {
	s := f.Speech
	if s == nil || s.Provider != "" {
		return nil, nil
	}
	base, key, err := f.credential("speech", s.BaseURL, s.APIKey, s.APIKeyEnv, s.CredentialFrom, false, getenv)
	if err != nil {
		return nil, err
	}
	return media.NewSpeech(media.SpeechConfig{BaseURL: base, APIKey: key, Model: s.Model, Language: s.Language,
		ResponseFormat: s.ResponseFormat, Stream: s.Stream, MaxBytes: s.MaxBytes, Timeout: time.Duration(s.Timeout)})
}

func sortedSourceNames(m map[string]SourceConfig) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// ResolveOCR returns the recognizer config.json's "ocr" configures, or
// nil when it has none or one naming a plugin's provider (OCRProvider).
func (f *File) ResolveOCR(getenv func(string) string) (*media.VisionOCR, error) {
	o := f.OCR
	if o == nil || o.Provider != "" {
		return nil, nil
	}
	base, key, err := f.credential("ocr", o.BaseURL, o.APIKey, o.APIKeyEnv, o.CredentialFrom, false, getenv)
	if err != nil {
		return nil, err
	}
	return media.NewVisionOCR(media.OCRConfig{BaseURL: base, APIKey: key, Model: o.Model, MaxPages: o.MaxPages, Timeout: time.Duration(o.Timeout)})
}

// OCRProvider returns, for an "ocr" naming a plugin's provider, its id
// and the base URL and key it gets; ok is false when "ocr" names none.
func (f *File) OCRProvider(getenv func(string) string) (id, baseURL, key string, ok bool, err error) {
	o := f.OCR
	if o == nil || o.Provider == "" {
		return "", "", "", false, nil
	}
	if plugin, k, cut := strings.Cut(o.Provider, "."); !cut || plugin == "" || k == "" {
		return "", "", "", false, fmt.Errorf("ocr: provider %q is not <plugin>.<key>", o.Provider)
	}
	base, key, err := f.credential("ocr", o.BaseURL, o.APIKey, o.APIKeyEnv, o.CredentialFrom, false, getenv)
	if err != nil {
		return "", "", "", false, err
	}
	return o.Provider, base, key, true, nil
}
