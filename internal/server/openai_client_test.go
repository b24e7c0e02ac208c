package server

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// openAIClientDir is the Node project running the official openai client.
const openAIClientDir = "testdata/openai-client"

// needOpenAIClient skips without Node.js or the openai npm package,
// except in CI, where .ci/run installs them and their absence is a
// failure.
func needOpenAIClient(t *testing.T) {
	t.Helper()
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(openAIClientDir + "/node_modules/openai/package.json")
	if nodeErr == nil && modErr == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("node or %s/node_modules is missing: .ci/run should have run npm ci (node: %v, module: %v)",
			openAIClientDir, nodeErr, modErr)
	}
	t.Skip("run `npm ci --prefix internal/server/testdata/openai-client` (with Node.js) to test the official OpenAI client")
}

// TestOfficialOpenAIClient points the openai npm package at a real server
// whose agent answers from a fake provider: models.list, a completion, a
// streamed completion with usage, and a refused request.
func TestOfficialOpenAIClient(t *testing.T) {
	needOpenAIClient(t)
	llm := llmtest.NewServer(t,
		llmtest.Reply{Text: "Hello, whole.", Usage: &llmtest.Usage{Prompt: 5, Completion: 3}},
		llmtest.Reply{Text: "Hello, streamed.", Usage: &llmtest.Usage{Prompt: 6, Completion: 2}},
	)
	_, hs := newTestServer(t, newProviderApp(t, llm.URL))
	cmd := exec.Command("node", "client.mjs", hs.URL+"/v1", testClientToken) // what a user gives it: hearth token --openai
	cmd.Dir = openAIClientDir
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "NODE_NO_WARNINGS=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s%s", err, out, stderr.String())
	}
	var got struct {
		Models     []string `json:"models"`
		Completion struct {
			ID, Object, Content string
			FinishReason        string     `json:"finish_reason"`
			Usage               *ChatUsage `json:"usage"`
		} `json:"completion"`
		Stream struct {
			Content      string
			Chunks       int
			FinishReason string     `json:"finish_reason"`
			Usage        *ChatUsage `json:"usage"`
		} `json:"stream"`
		Refused *struct {
			Status  int
			Message string
		} `json:"refused"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node printed %s: %v", out, err)
	}
	if strings.Join(got.Models, ",") != "hearth" {
		t.Errorf("models %q", got.Models)
	}
	c := got.Completion
	if c.Content != "Hello, whole." || c.Object != "chat.completion" || c.FinishReason != "stop" || c.Usage == nil || c.Usage.TotalTokens != 8 {
		t.Errorf("completion %+v", c)
	}
	st := got.Stream
	if st.Content != "Hello, streamed." || st.Chunks < 3 || st.FinishReason != "stop" || st.Usage == nil || st.Usage.TotalTokens != 8 {
		t.Errorf("stream %+v", st)
	}
	if got.Refused == nil || got.Refused.Status != 400 || !strings.Contains(got.Refused.Message, "n must be 1") {
		t.Errorf("n=2 refused as %+v", got.Refused)
	}
}
