package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

const modelsKey = "sk-models-cli-secret-0123456789abcdef"

func TestModelsTest(t *testing.T) {
	ok := llmtest.NewServer(t, llmtest.Reply{Text: "OK"})
	env := []string{"OPENAI_BASE_URL=" + ok.URL, "OPENAI_API_KEY=" + modelsKey, "HEARTH_MODEL=m1", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, code := hearth(t, env, "", "models", "test")
	if code != 0 || !strings.HasPrefix(stdout, "ok: env answered with m1") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	rejecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + modelsKey + `"}}`))
	}))
	defer rejecting.Close()
	env = []string{"OPENAI_BASE_URL=" + rejecting.URL + "/v1", "OPENAI_API_KEY=" + modelsKey, "HEARTH_MODEL=m1", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, code = hearth(t, env, "", "models", "test", "--json")
	var res struct {
		Source string `json:"source"`
		OK     bool   `json:"ok"`
		Error  string `json:"error"`
	}
	if code != 1 || json.Unmarshal([]byte(stdout), &res) != nil || res.OK || res.Source != "env" || res.Error == "" {
		t.Fatalf("rejected key: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "0123456789abcdef") {
		t.Fatalf("the key was printed: %s %s", stdout, stderr)
	}
}

func TestModelsListBalanceAndCatalog(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer "+modelsKey {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"data":[{"id":"gpt-4o-mini"},{"id":"local-model"}]}`))
	}))
	defer srv.Close()
	env := []string{"OPENAI_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=" + modelsKey, "HEARTH_MODEL=m1", "HEARTH_HOME=" + t.TempDir()}

	stdout, stderr, code := hearth(t, env, "", "models", "list", "env", "--json")
	var list struct {
		Listed bool `json:"listed"`
		Models []struct {
			ID string `json:"id"`
		} `json:"models"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &list) != nil || !list.Listed || len(list.Models) != 2 || list.Models[1].ID != "local-model" {
		t.Fatalf("list: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// A loopback address is no provider with a balance API.
	stdout, stderr, code = hearth(t, env, "", "models", "balance")
	if code != 1 || !strings.Contains(stderr, "no balance API") {
		t.Fatalf("balance: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	stdout, stderr, code = hearth(t, env, "", "models")
	if code != 0 || !strings.Contains(stdout, "env *current") || !strings.Contains(stdout, "deepseek-chat") ||
		!strings.Contains(stdout, "CNY") || strings.Contains(stdout, modelsKey) {
		t.Fatalf("catalog: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, _, code = hearth(t, env, "", "models", "--json")
	var cat struct {
		Sources []struct {
			Name   string `json:"name"`
			KeySet bool   `json:"key_set"`
		} `json:"sources"`
		Presets []struct {
			Name       string `json:"name"`
			HasBalance bool   `json:"has_balance"`
		} `json:"presets"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &cat) != nil || len(cat.Sources) != 1 || !cat.Sources[0].KeySet || len(cat.Presets) < 8 {
		t.Fatalf("catalog --json: exit %d, %s", code, stdout)
	}
}

func TestModelsUsageErrors(t *testing.T) {
	env := []string{"OPENAI_BASE_URL=http://127.0.0.1:9/v1", "HEARTH_MODEL=m1", "HEARTH_HOME=" + t.TempDir()}
	for _, args := range [][]string{{"models", "bogus"}, {"models", "test", "nosuch"}, {"models", "test", "a", "b"}, {"models", "--reveal"}} {
		if _, stderr, code := hearth(t, env, "", args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if _, stderr, code := hearth(t, []string{"HEARTH_HOME=" + t.TempDir()}, "", "models", "test"); code != 2 || !strings.Contains(stderr, "no model source") {
		t.Errorf("no source: exit %d, stderr %q", code, stderr)
	}
	if out, _, code := hearth(t, nil, "", "models", "-h"); code != 0 || !strings.Contains(out, "hearth models balance") {
		t.Errorf("help: exit %d, %q", code, out)
	}
}
