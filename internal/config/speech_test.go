package config

import (
	"strings"
	"testing"
)

func TestSpeechConfig(t *testing.T) {
	const sources = `"sources":{"ds":{"base_url":"https://api.example.com/v1","api_key_env":"DS_KEY","model":"chat"}}`
	for _, tc := range []struct {
		name, json, err string
	}{
		{"credential_from", `{` + sources + `,"speech":{"credential_from":"ds","model":"whisper-1"}}`, ""},
		{"own url", `{"speech":{"base_url":"http://127.0.0.1:9000/v1","model":"m","stream":true}}`, ""},
		{"unknown source", `{` + sources + `,"speech":{"credential_from":"nope"}}`, `speech: credential_from "nope" is not a source of "sources" (have: ds)`},
		{"no url", `{"speech":{"model":"m"}}`, "speech: no base_url"},
		{"bad format", `{"speech":{"base_url":"http://x/v1","response_format":"srt"}}`, `response format "srt"`},
		{"plugin provider", `{` + sources + `,"speech":{"provider":"siliconflow.asr","credential_from":"ds"}}`, ""},
		{"plugin provider own key", `{"speech":{"provider":"siliconflow.asr","api_key_env":"SF_KEY"}}`, ""},
		{"bad provider id", `{"speech":{"provider":"siliconflow"}}`, `speech: provider "siliconflow" is not <plugin>.<key>`},
		{"ocr", `{` + sources + `,"ocr":{"credential_from":"ds","model":"qwen-vl"}}`, ""},
		{"ocr no model", `{` + sources + `,"ocr":{"credential_from":"ds"}}`, "ocr: no model"},
		{"ocr unknown source", `{"ocr":{"credential_from":"x","model":"v"}}`, `ocr: credential_from "x"`},
		{"ocr plugin provider", `{` + sources + `,"ocr":{"provider":"deepseek.ocr","credential_from":"ds"}}`, ""},
		{"ocr plugin provider without url", `{"ocr":{"provider":"deepseek.ocr"}}`, "ocr: no base_url"},
		{"typo", `{"speech":{"base_ur":"http://x"}}`, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("config.json", []byte(tc.json))
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("Parse: %v, want %q", err, tc.err)
			}
		})
	}
}

func TestSpeechCredentialFrom(t *testing.T) {
	f, err := Parse("config.json", []byte(`{"sources":{"ds":{"base_url":"https://api.example.com/v1","api_key_env":"DS_KEY"}},
		"speech":{"credential_from":"ds","model":"whisper-1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DS_KEY": "sk-shared-key"}
	base, key, err := f.credential("speech", f.Speech.BaseURL, f.Speech.APIKey, f.Speech.APIKeyEnv, f.Speech.CredentialFrom, false, func(k string) string { return env[k] })
	if err != nil || base != "https://api.example.com/v1" || key != "sk-shared-key" {
		t.Errorf("credential: %q %q %v", base, key, err)
	}
	sp, err := f.ResolveSpeech(func(k string) string { return env[k] })
	if err != nil || sp == nil {
		t.Errorf("ResolveSpeech: %v %v", sp, err)
	}
}

func TestSpeechProvider(t *testing.T) {
	f, err := Parse("config.json", []byte(`{"sources":{"ds":{"base_url":"https://api.example.com/v1","api_key":"sk-shared"}},
		"speech":{"provider":"deepseek.asr","credential_from":"ds"}}`))
	if err != nil {
		t.Fatal(err)
	}
	id, base, key, ok, err := f.SpeechProvider(nil)
	if err != nil || !ok || id != "deepseek.asr" || base != "" || key != "sk-shared" {
		t.Errorf("SpeechProvider: %q %q %q %v %v", id, base, key, ok, err)
	}
	if sp, err := f.ResolveSpeech(nil); sp != nil || err != nil {
		t.Errorf("ResolveSpeech of a plugin provider: %v %v", sp, err)
	}
}
