package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mattn/go-runewidth"

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

// The tables of hearth models have a header, and their columns line up
// on a terminal with Chinese names in them: a CJK character takes two
// columns there.
func TestModelsTablesAlignCJK(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"data":[{"id":"通义千问-7b"},{"id":"qwen-7b"}]}`))
	}))
	defer srv.Close()
	home := t.TempDir()
	cfg := `{"sources": {"本地模型": {"base_url": "` + srv.URL + `/v1", "model": "通义千问-7b"},
		"deepseek": {"base_url": "https://api.deepseek.com/v1", "model": "deepseek-chat"}}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HEARTH_HOME=" + home}
	out, errOut, code := hearth(t, env, "", "models")
	if code != 0 {
		t.Fatalf("models: %d %q %q", code, out, errOut)
	}
	sources, presets, _ := strings.Cut(out, "\n\n")
	checkColumns(t, sources, "SOURCE", "MODEL", "ADDRESS", "KEY", "PRICE")
	if !strings.HasPrefix(presets, "  MODEL ") || !strings.Contains(presets, "CONTEXT  PRICE (hit/miss/out per 1M)") {
		t.Errorf("no header over the presets' models:\n%s", presets)
	}
	out, errOut, code = hearth(t, env, "", "models", "list", "本地模型")
	if code != 0 {
		t.Fatalf("models list: %d %q %q", code, out, errOut)
	}
	checkColumns(t, out, "MODEL", "CONTEXT", "PRICE")
}

// checkColumns checks that table has a header row naming cols and that
// each cell of every row starts at the display column of its header.
func checkColumns(t *testing.T, table string, cols ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	var at []int
	for _, c := range cols {
		i := strings.Index(lines[0], c)
		if i < 0 {
			t.Fatalf("no %s in the header of\n%s", c, table)
		}
		at = append(at, runewidth.StringWidth(lines[0][:i]))
	}
	if len(lines) < 3 {
		t.Fatalf("a header and two rows wanted:\n%s", table)
	}
	for _, l := range lines[1:] {
		// A cell starts after two spaces, where its column does.
		for i, w := range at[1:] {
			prefix := runewidthTruncate(l, w)
			if runewidth.StringWidth(prefix) != w || !strings.HasSuffix(prefix, "  ") || strings.HasPrefix(l[len(prefix):], " ") {
				t.Errorf("column %s of %q does not start at %d:\n%s", cols[i+1], l, w, table)
			}
		}
	}
}

// runewidthTruncate is the longest prefix of s at most w columns wide.
func runewidthTruncate(s string, w int) string {
	n := 0
	for i, r := range s {
		if n+runewidth.RuneWidth(r) > w {
			return s[:i]
		}
		n += runewidth.RuneWidth(r)
	}
	return s
}

// A key the provider refused is not used again until it changes, or
// until `hearth models test` finds it works: without a daemon too.
func TestModelsTestClearsARejectedKey(t *testing.T) {
	var refuse atomic.Bool
	refuse.Store(true)
	srv := llmtest.NewServer(t)
	srv.SetFallback(llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply {
		if refuse.Load() {
			return llmtest.Reply{Status: http.StatusUnauthorized, ErrorMessage: "invalid key"}
		}
		return llmtest.Reply{Text: "OK"}
	}})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=" + modelsKey, "HEARTH_MODEL=m1", "HEARTH_HOME=" + t.TempDir()}
	if _, stderr, code := hearth(t, env, "", "ask", "hi"); code == 0 || !strings.Contains(stderr, "rejected") {
		t.Fatalf("ask with a refused key: %d %q", code, stderr)
	}
	refuse.Store(false)
	before := len(srv.Requests())
	if _, stderr, code := hearth(t, env, "", "ask", "hi"); code == 0 || len(srv.Requests()) != before {
		t.Fatalf("the marked source was called (%d requests): %d %q", len(srv.Requests())-before, code, stderr)
	}
	if out, stderr, code := hearth(t, env, "", "models", "test"); code != 0 || !strings.HasPrefix(out, "ok: env") {
		t.Fatalf("models test: %d %q %q", code, out, stderr)
	}
	if out, stderr, code := hearth(t, env, "", "ask", "hi"); code != 0 || out != "OK\n" {
		t.Fatalf("ask after the test: %d %q %q", code, out, stderr)
	}
}
