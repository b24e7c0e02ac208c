package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hearth token --openai gives a running daemon's OpenAI client token: it
// lists the models but is refused everywhere else; --openai --rotate
// replaces it alone, and the API token keeps working.
func TestTokenOpenAIOnARunningDaemon(t *testing.T) {
	home := t.TempDir()
	s := startServe(t, home, nil)
	env := []string{"HEARTH_HOME=" + home}
	status := func(path, token string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", s.info.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	owner, _, _ := hearth(t, env, "", "token")
	client, _, code := hearth(t, env, "", "token", "--openai")
	owner, client = strings.TrimSpace(owner), strings.TrimSpace(client)
	if code != 0 || len(client) < 40 || client == owner {
		t.Fatalf("hearth token --openai: %d %q", code, client)
	}
	if again, _, _ := hearth(t, env, "", "token", "--openai"); strings.TrimSpace(again) != client {
		t.Fatalf("second hearth token --openai: %q, want %q", again, client)
	}
	if fi, err := os.Stat(filepath.Join(home, "api-token-openai")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("api-token-openai: %v %v", fi, err)
	}
	for path, want := range map[string]int{"/v1/models": 200, "/v1/health": 401, "/v1/providers": 401, "/v1/approvals": 401} {
		if got := status(path, client); got != want {
			t.Errorf("client token on %s: %d, want %d", path, got, want)
		}
	}
	rotated, errOut, code := hearth(t, env, "", "token", "--openai", "--rotate")
	rotated = strings.TrimSpace(rotated)
	if code != 0 || rotated == client || !strings.Contains(errOut, "OpenAI clients holding the old one are refused") {
		t.Fatalf("rotate: %d %q %q", code, rotated, errOut)
	}
	if got := status("/v1/models", client); got != http.StatusUnauthorized {
		t.Fatalf("old client token: %d", got)
	}
	if got := status("/v1/models", rotated); got != http.StatusOK {
		t.Fatalf("new client token: %d", got)
	}
	if got := status("/v1/health", owner); got != http.StatusOK {
		t.Fatalf("API token after the client rotation: %d", got)
	}
}
