package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, dir, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readTop(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

func TestPutSourceKeepsTheRest(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `{
  "system_prompt": "Be terse.",
  "max_steps": 7,
  "disabled_plugins": ["shell"],
  "source": "local",
  "sources": {
    "local": {"base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5", "idle_timeout": "90s", "api_key_env": "LOCAL_KEY"}
  }
}`)
	before := readTop(t, dir)
	if err := PutSource(dir, "deepseek", SourceConfig{BaseURL: "https://api.deepseek.com/v1", APIKey: "sk-new", Model: "deepseek-chat"}); err != nil {
		t.Fatal(err)
	}
	after := readTop(t, dir)
	for _, k := range []string{"system_prompt", "max_steps", "disabled_plugins", "source"} {
		if !reflect.DeepEqual(before[k], after[k]) {
			t.Errorf("%s: %v became %v", k, before[k], after[k])
		}
	}
	srcs := after["sources"].(map[string]any)
	if !reflect.DeepEqual(srcs["local"], before["sources"].(map[string]any)["local"]) {
		t.Errorf("the other source changed: %v", srcs["local"])
	}
	f, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Sources["deepseek"]; got.APIKey != "sk-new" || got.Model != "deepseek-chat" {
		t.Errorf("deepseek: %+v", got)
	}
	info, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", info.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".config.json.*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestSetCurrentAndDelete(t *testing.T) {
	dir := t.TempDir() // no config.json yet
	for _, n := range []string{"a", "b"} {
		if err := PutSource(dir, n, SourceConfig{BaseURL: "http://127.0.0.1:1/v1"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := SetCurrentSource(dir, "b"); err != nil {
		t.Fatal(err)
	}
	if err := SetCurrentSource(dir, "nope"); err == nil {
		t.Error("made an unknown source current")
	}
	if f, _ := Load(dir); f.Source != "b" {
		t.Fatalf("source %q", f.Source)
	}
	if err := DeleteSource(dir, "b"); err != nil {
		t.Fatal(err)
	}
	f, err := Load(dir)
	if err != nil || f.Source != "" || len(f.Sources) != 1 {
		t.Fatalf("after deleting the current source: %+v, %v", f, err)
	}
	if err := DeleteSource(dir, "a"); err != nil {
		t.Fatal(err)
	}
	if top := readTop(t, dir); len(top) != 0 {
		t.Errorf("left %v", top)
	}
}

func TestEditRefusesABrokenFile(t *testing.T) {
	for name, text := range map[string]string{
		"not json":      `{"sources": {`,
		"unknown field": `{"sorces": {}}`,
		"array":         `[]`,
		"bad source":    `{"sources": {"x": {"base_url": "ftp://x"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeConfig(t, dir, text)
			err := PutSource(dir, "a", SourceConfig{BaseURL: "http://127.0.0.1:1/v1"})
			if !errors.Is(err, ErrUnparsable) {
				t.Fatalf("err %v, want ErrUnparsable", err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, FileName)); string(b) != text {
				t.Errorf("the file was changed to %s", b)
			}
		})
	}
}

func TestEditRefusesAnInvalidResult(t *testing.T) {
	dir := t.TempDir()
	err := PutSource(dir, "a", SourceConfig{BaseURL: "not a url"})
	if err == nil || !strings.Contains(err.Error(), "would not load") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was written: %v", err)
	}
}

func TestEditFailsWhereItCannotWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	if err := PutSource(dir, "a", SourceConfig{BaseURL: "http://127.0.0.1:1/v1"}); err == nil {
		t.Fatal("wrote into a directory that does not exist")
	}
}
