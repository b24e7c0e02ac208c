package pluginhost

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

func TestConvertMCPResult(t *testing.T) {
	tests := []struct {
		name    string
		res     *mcp.CallToolResult
		want    string
		isError bool
	}{
		{"structured only", &mcp.CallToolResult{StructuredContent: map[string]any{"n": 1}}, `{"n":1}`, false},
		{"structured repeated as text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{ "n": 1 }`}}, StructuredContent: map[string]any{"n": 1}}, `{ "n": 1 }`, false},
		{"structured after text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "two"}}, StructuredContent: map[string]any{"n": 2}}, "two\n\n{\"n\":2}", false},
		{"structured repeating the text's values", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello\n"}}, StructuredContent: map[string]any{"content": "hello\n"}}, "hello\n", false},
		{"structured repeating the text's numbers", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sum 3 of [1 2]"}}, StructuredContent: map[string]any{"sum": 3, "of": []any{1, 2}, "ok": nil}}, "sum 3 of [1 2]", false},
		{"structured adding data", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found a"}}, StructuredContent: map[string]any{"items": []any{"a", "b"}}}, "found a\n\n{\"items\":[\"a\",\"b\"]}", false},
		{"audio and blob", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 12*1024)},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://b", Blob: make([]byte, 3<<20)}},
		}}, "[audio audio/wav, 12 KB]\n\n[resource mem://b: application/octet-stream, 3.0 MB]", false},
		{"error", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "denied"}}}, "denied", true},
		{"empty", &mcp.CallToolResult{}, "(no output)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := toolcall.Encode(convertMCPResult(tt.res))
			if r.Content != tt.want || r.IsError != tt.isError {
				t.Fatalf("got (%q, %v), want (%q, %v)", r.Content, r.IsError, tt.want, tt.isError)
			}
		})
	}
}

func TestMCPRunsMasksSecrets(t *testing.T) {
	for cfg, want := range map[string]string{
		"https://user:pw@example.com/mcp?key=abc&x=1": "https://***@example.com/mcp?key=***&x=***",
		"http://127.0.0.1:8080/mcp":                   "http://127.0.0.1:8080/mcp",
	} {
		if got := mcpRuns(mcpURL(cfg)); got != want {
			t.Errorf("%s: %s, want %s", cfg, got, want)
		}
	}
}

func mcpURL(u string) config.MCPServer { return config.MCPServer{URL: u} }
